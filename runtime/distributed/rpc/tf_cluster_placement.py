"""TensorFlow's placement of a GraphDef on a cluster given by TF_CONFIG.

Starts one in-process tf.distribute.Server per task of TF_CONFIG's
cluster, imports the GraphDef (text) with the --device style requests
PREFIX=DEVICE applied (a node named PREFIX, or under PREFIX/, gets DEVICE),
and for each job in JOBS opens a session on that job's task 0, runs `init`
and one `train` step, and prints "JOB NODE DEVICE" for every node of the
GraphDef that the step's partition graphs hold. Grappler is off: this is
the placer's answer, not the optimizer's.

  TF_CONFIG=... python tf_cluster_placement.py GRAPH.pbtxt REQUESTS JOBS
"""
import json
import os
import sys

import tensorflow as tf
from google.protobuf import text_format


def main(graph_path, requests_arg, jobs_arg):
  tf.compat.v1.disable_eager_execution()
  cluster = tf.train.ClusterSpec(json.loads(os.environ["TF_CONFIG"])["cluster"])
  servers = {job: tf.distribute.Server(cluster, job_name=job, task_index=0)
             for job in cluster.jobs}
  graph_def = tf.compat.v1.GraphDef()
  with open(graph_path) as f:
    text_format.Parse(f.read(), graph_def)
  requests = dict(r.split("=", 1) for r in requests_arg.split(","))
  for node in graph_def.node:
    for prefix, device in requests.items():
      if node.name == prefix or node.name.startswith(prefix + "/"):
        node.device = device
  graph = tf.Graph()
  with graph.as_default():
    tf.compat.v1.import_graph_def(graph_def, name="")
  config = tf.compat.v1.ConfigProto()
  config.graph_options.rewrite_options.disable_meta_optimizer = True
  names = {node.name for node in graph_def.node}
  for job in jobs_arg.split(","):
    with tf.compat.v1.Session(servers[job].target, graph=graph,
                              config=config) as session:
      session.run("init")
      metadata = tf.compat.v1.RunMetadata()
      session.run("train",
                  feed_dict={"x:0": [0.0, 0.5, 1.0], "y:0": [0.3, 0.35, 0.4]},
                  options=tf.compat.v1.RunOptions(output_partition_graphs=True),
                  run_metadata=metadata)
      for partition in metadata.partition_graphs:
        for node in partition.node:
          if node.name in names:
            print(job, node.name, node.device)


if __name__ == "__main__":
  main(*sys.argv[1:])
