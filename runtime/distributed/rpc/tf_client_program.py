"""A TensorFlow 1.x-style program, run by TensorFlow's own Python client.

    python tf_client_program.py <target> <tmpdir> <zoo models dir>

<target> is "grpc://host:port" (a two-task cluster whose tasks are
/job:worker/task:0 and /job:worker/task:1, task 0 its master) or "local"
(an in-process TensorFlow session: the reference). The program is the same
for both; on a cluster the variable w lives on task 1 and b on task 0, and
the math on task 0. It prints one JSON object on stdout with what it saw:
the trained values, a saver round trip, partial runs, a callable, step
stats, and which errors TensorFlow raised; the test driver compares the
cluster's object with the local one and checks the cluster-only facts.
It then trains the zoo's MLP (testing/tf_models/tf1_models.py, Adam, 20
steps) with its first layer on task 1 and the rest on task 0, and prints
every step's loss.
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_v2_behavior()


def device(spec, remote):
  return tf.device(spec) if remote else tf.device(None)


def train_zoo_mlp(sess_target, remote):
  """The zoo's MLP trained 20 steps; fc1 (and its Adam slots) on task 1."""
  from tf1_models import mlp_adam_graph  # pylint: disable=import-outside-toplevel

  def place(op):
    if not remote:
      return ""
    task = 1 if op.name.startswith("fc1/") else 0
    return "/job:worker/task:%d" % task

  graph = tf.Graph()
  with graph.as_default(), graph.device(place):
    loss, train, feeds = mlp_adam_graph()
    init = tf1.global_variables_initializer()
  with tf1.Session(sess_target, graph=graph) as sess:
    sess.run(init)
    losses = []
    for _ in range(20):
      l, _ = sess.run([loss, train], feed_dict=feeds)
      losses.append(float(l))
    tasks = sorted({op.device for op in graph.get_operations() if op.device})
  return losses, tasks


def main():
  target, tmpdir = sys.argv[1], sys.argv[2]
  sys.path.insert(0, sys.argv[3])
  remote = target != "local"
  out = {}
  graph = tf.Graph()
  with graph.as_default():
    x = tf1.placeholder(tf.float32, shape=[None], name="x")
    y = tf1.placeholder(tf.float32, shape=[None], name="y")
    with device("/job:worker/task:1", remote):
      w = tf1.Variable(tf.constant([-0.4]), name="w")
    with device("/job:worker/task:0", remote):
      b = tf1.Variable(tf.constant([0.7]), name="b")
      pred = w * x + b
      loss = tf.reduce_mean(tf.square(pred - y), name="loss")
      train = tf1.train.GradientDescentOptimizer(0.5).minimize(loss)
      init = tf1.global_variables_initializer()
      saver = tf1.train.Saver([w, b])
      # Partial runs: a + b, then (a + b) * c with c fed later.
      pa = tf1.placeholder(tf.float32, shape=[], name="pa")
      pb = tf1.placeholder(tf.float32, shape=[], name="pb")
      pc = tf1.placeholder(tf.float32, shape=[], name="pc")
      r1 = tf.add(pa, pb, name="r1")
      r2 = tf.multiply(r1, pc, name="r2")
      # A step that blocks for ever: a loop that never ends.
      never = tf1.while_loop(lambda i: i >= 0, lambda i: i + 1,
                             [tf.constant(0)], name="never")
    with device("/job:worker/task:1", remote):
      scaled = tf.multiply(w, x, name="scaled")

  xs = np.linspace(0.0, 1.0, 50, dtype=np.float32)
  ys = (0.1 * xs + 0.3).astype(np.float32)
  sess_target = target if remote else ""
  with tf1.Session(sess_target, graph=graph) as sess:
    sess.run(init)
    losses = []
    for _ in range(60):
      _, l = sess.run([train, loss], feed_dict={x: xs, y: ys})
      losses.append(float(l))
    wv, bv = sess.run([w, b])
    out["w"] = wv.tolist()
    out["b"] = bv.tolist()
    out["loss_first"] = losses[0]
    out["loss_last"] = losses[-1]

    # Saver: save, clobber the variables, restore.
    prefix = saver.save(sess, os.path.join(tmpdir, "ckpt_" + (
        "remote" if remote else "local")))
    sess.run([w.assign([9.0]), b.assign([9.0])])
    clobbered = sess.run([w, b])
    saver.restore(sess, prefix)
    restored = sess.run([w, b])
    out["clobbered"] = [v.tolist() for v in clobbered]
    out["restored"] = [v.tolist() for v in restored]

    # Partial run.
    h = sess.partial_run_setup([r1, r2], [pa, pb, pc])
    out["prun_r1"] = float(sess.partial_run(h, r1, feed_dict={pa: 1.5,
                                                              pb: 2.0}))
    out["prun_r2"] = float(sess.partial_run(h, r2, feed_dict={pc: 4.0}))

    # A callable (Session::MakeCallable / RunCallable / ReleaseCallable).
    fn = sess.make_callable(scaled, feed_list=[x])
    out["callable"] = [fn(np.array([1.0, 2.0], np.float32)).tolist(),
                       fn(np.array([3.0], np.float32)).tolist()]
    del fn

    # Step stats with FULL_TRACE.
    opts = tf1.RunOptions(trace_level=tf1.RunOptions.FULL_TRACE)
    md = tf1.RunMetadata()
    sess.run(train, feed_dict={x: xs, y: ys}, options=opts, run_metadata=md)
    out["trace_devices"] = sorted(d.device for d in md.step_stats.dev_stats)
    out["trace_nodes"] = sorted(
        {n.node_name for d in md.step_stats.dev_stats for n in d.node_stats})
    out["trace_tasks"] = {
        n.node_name: d.device.split("/device:")[0]
        for d in md.step_stats.dev_stats for n in d.node_stats}

    # Errors: a placeholder not fed, then a step past its deadline.
    try:
      sess.run(loss, feed_dict={x: xs})
      out["missing_feed"] = "no error"
    except tf.errors.OpError as e:
      out["missing_feed"] = type(e).__name__
      out["missing_feed_message"] = e.message
    if remote:
      try:
        sess.run(never, options=tf1.RunOptions(timeout_in_ms=500))
        out["deadline"] = "no error"
      except tf.errors.OpError as e:
        out["deadline"] = type(e).__name__
      # The session still works after both errors.
      out["after_errors"] = sess.run(r1, feed_dict={pa: 1.0, pb: 1.0}).item()
  out["mlp_losses"], out["mlp_devices"] = train_zoo_mlp(sess_target, remote)
  print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
  main()
