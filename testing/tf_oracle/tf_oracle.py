"""TensorFlow as the oracle: runs an oracle case with real TensorFlow.

A case is a directory (README.md beside this file, oracle.proto): case.json,
the GraphDef it names, and the feed tensors. This module imports the
GraphDef unchanged into a `tf.compat.v1.Session`, with the graph rewrites
that could hide a semantic difference switched off (grappler's meta
optimizer, constant folding, the oneDNN graph rewrites), runs the init
targets once and then `steps` steps of Session.run(fetches + targets), and
writes a result directory in the same format: result.json and one binary
TensorProto per fetched value, or TensorFlow's error code, message and the
phase that failed.

Command line (the interpreter is $STEPFLOW_TF_PYTHON, tools/install_tf.sh):
  tf_oracle.py run CASE_DIR RESULT_DIR   run one case
  tf_oracle.py tree ROOT                 run every case under ROOT into
                                         CASE_DIR/expected
  tf_oracle.py serve                     one JSON request per stdin line,
                                         {"case": DIR, "result": DIR}; one
                                         JSON reply per line, {"code": ...}

As a library, the generators (testing/tf_models, testing/tf_ops) call
write_case() and run_case().
"""

import json
import os
import shutil
import sys
import tempfile

# Set before TensorFlow loads: deterministic Eigen kernels (no oneDNN graph
# rewrites or kernels) and quiet logs.
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from google.protobuf import text_format  # noqa: E402
from tensorflow.core.framework import tensor_pb2  # noqa: E402

# Canonical error code names, by TensorFlow's (and absl's) numbering.
CODE_NAMES = {
    0: "OK", 1: "CANCELLED", 2: "UNKNOWN", 3: "INVALID_ARGUMENT",
    4: "DEADLINE_EXCEEDED", 5: "NOT_FOUND", 6: "ALREADY_EXISTS",
    7: "PERMISSION_DENIED", 8: "RESOURCE_EXHAUSTED",
    9: "FAILED_PRECONDITION", 10: "ABORTED", 11: "OUT_OF_RANGE",
    12: "UNIMPLEMENTED", 13: "INTERNAL", 14: "UNAVAILABLE", 15: "DATA_LOSS",
    16: "UNAUTHENTICATED",
}

# dtypes a .npy file holds exactly (the rest are written as TensorProto).
_NPY_KINDS = "biufc"


def session_config():
    """A ConfigProto with the rewrites that could hide differences off."""
    config = tf.compat.v1.ConfigProto()
    config.intra_op_parallelism_threads = 1
    config.inter_op_parallelism_threads = 1
    rewrite = config.graph_options.rewrite_options
    rewrite.disable_meta_optimizer = True
    opts = config.graph_options.optimizer_options
    opts.opt_level = tf.compat.v1.OptimizerOptions.L0
    opts.do_constant_folding = False
    opts.do_common_subexpression_elimination = False
    opts.do_function_inlining = False
    return config


def tensor_name(name):
    """"x" -> "x:0"; "x:1" stays."""
    return name if ":" in name.rsplit("/", 1)[-1] else name + ":0"


def _write_tensor(path_no_ext, value, prefer_npy):
    """Writes `value` (ndarray or TensorProto); returns the file name."""
    if isinstance(value, tensor_pb2.TensorProto) or not prefer_npy:
        proto = value if isinstance(value, tensor_pb2.TensorProto) else \
            tf.compat.v1.make_tensor_proto(value)
        path = path_no_ext + ".pb"
        with open(path, "wb") as f:
            f.write(proto.SerializeToString(deterministic=True))
        return os.path.basename(path)
    arr = np.asarray(value)
    if arr.dtype.kind not in _NPY_KINDS or arr.dtype.name == "bfloat16":
        return _write_tensor(path_no_ext, value, prefer_npy=False)
    path = path_no_ext + ".npy"
    # np.ascontiguousarray would turn a 0-d array into shape (1,).
    np.save(path, np.require(arr, requirements='C'), allow_pickle=False)
    return os.path.basename(path)


def read_tensor(path):
    """An ndarray from a .npy or binary TensorProto .pb file."""
    if path.endswith(".npy"):
        return np.load(path, allow_pickle=False)
    proto = tensor_pb2.TensorProto()
    with open(path, "rb") as f:
        proto.ParseFromString(f.read())
    return tf.make_ndarray(proto)


def write_case(case_dir, name, graph_def=None, fetches=(), feeds=None,
               targets=(), init_targets=(), steps=1, note="",
               run_in_scratch_dir=False, saved_model=None, tags=(),
               signature="", scratch_inputs=(), scratch_outputs=()):
    """Writes a case directory. `feeds` maps endpoint names (or, for a
    SavedModel case, signature input keys) to ndarrays or TensorProtos;
    numeric values go to .npy, the rest to TensorProto. For a SavedModel
    case, `saved_model` is its directory relative to case_dir (already
    there) and `graph_def` is None."""
    os.makedirs(os.path.join(case_dir, "feeds"), exist_ok=True)
    case = {"name": name}
    if saved_model is None:
        with open(os.path.join(case_dir, "graph.pb"), "wb") as f:
            # Deterministic: map fields (attrs) in key order, so regenerated
            # goldens are byte-identical.
            f.write(graph_def.SerializeToString(deterministic=True))
        case["graph"] = "graph.pb"
    else:
        case.update(saved_model=saved_model, tags=list(tags),
                    signature=signature)
    feed_entries = []
    for i, (feed_name, value) in enumerate(sorted((feeds or {}).items())):
        file = _write_tensor(os.path.join(case_dir, "feeds", str(i)), value,
                             prefer_npy=True)
        feed_entries.append({"name": feed_name, "file": "feeds/" + file})
    case.update(feeds=feed_entries, init_targets=list(init_targets),
                fetches=list(fetches), targets=list(targets), steps=int(steps))
    if note:
        case["note"] = note
    if run_in_scratch_dir:
        case["run_in_scratch_dir"] = True
    if scratch_inputs:
        case["scratch_inputs"] = list(scratch_inputs)
    if scratch_outputs:
        case["scratch_outputs"] = list(scratch_outputs)
    with open(os.path.join(case_dir, "case.json"), "w") as f:
        json.dump(case, f, indent=1, sort_keys=True)
        f.write("\n")


def load_graph_def(path):
    graph_def = tf.compat.v1.GraphDef()
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".pbtxt"):
        text_format.Parse(data.decode("utf-8"), graph_def)
    else:
        graph_def.ParseFromString(data)
    return graph_def


def _error_code(e):
    if isinstance(e, tf.errors.OpError):
        return CODE_NAMES.get(e.error_code, "UNKNOWN"), e.message
    # The Python layer turns TensorFlow's InvalidArgument from graph import
    # and from name lookups into ValueError/KeyError/TypeError.
    return "INVALID_ARGUMENT", str(e)


def _run_steps(sess, case, feed_dict, fetches, targets, init, result_dir,
               result):
    """Init targets one Session.run each, then the steps; fills result."""
    for op in init:
        result["phase"] = "init"
        sess.run(op, feed_dict)
    result["phase"] = "step"
    for step in range(max(1, int(case.get("steps", 1)))):
        values = sess.run(fetches + targets, feed_dict)[:len(fetches)]
        entries = []
        for i, (n, v) in enumerate(zip(case.get("fetches", []), values)):
            file = _write_tensor(os.path.join(result_dir, "s%d_f%d" % (step, i)),
                                 v, prefer_npy=False)
            entries.append({"name": n, "file": file})
        result["steps"].append({"values": entries})
    outputs = case.get("scratch_outputs", [])
    if outputs:
        entries = []
        for i, name in enumerate(outputs):
            if os.path.exists(name):
                with open(name, "rb") as f:
                    value = np.array(f.read(), object)
            else:
                value = np.zeros([0], object)
            file = _write_tensor(os.path.join(result_dir, "out_f%d" % i), value,
                                 prefer_npy=False)
            entries.append({"name": name, "file": file})
        result["steps"].append({"values": entries})
    del result["phase"]


def _refuse_fed_fetches(feed_dict, fetches):
    """TensorFlow's runtime (its C++ session and C API) refuses a tensor
    that is both fed and fetched; its Python client alone answers such a
    fetch from the feeds without asking the runtime. The oracle speaks for
    the runtime."""
    for t in fetches:
        if t in feed_dict:
            raise tf.errors.InvalidArgumentError(
                None, None, "%s is both fed and fetched." % t.name)


def _run_graph_case(case_dir, case, feeds, result_dir, result):
    result["phase"] = "load"
    graph_def = load_graph_def(os.path.join(case_dir, case["graph"]))
    result["phase"] = "import"
    graph = tf.Graph()
    with graph.as_default():
        tf.graph_util.import_graph_def(graph_def, name="")
    feed_dict = {graph.get_tensor_by_name(tensor_name(n)): v for n, v in feeds.items()}
    fetches = [graph.get_tensor_by_name(tensor_name(n)) for n in case.get("fetches", [])]
    _refuse_fed_fetches(feed_dict, fetches)
    targets = [graph.get_operation_by_name(n) for n in case.get("targets", [])]
    init = [graph.get_operation_by_name(n) for n in case.get("init_targets", [])]
    with tf.compat.v1.Session(graph=graph, config=session_config()) as sess:
        _run_steps(sess, case, feed_dict, fetches, targets, init, result_dir, result)


def _run_saved_model_case(case_dir, case, feeds, result_dir, result):
    result["phase"] = "import"
    graph = tf.Graph()
    with tf.compat.v1.Session(graph=graph, config=session_config()) as sess:
        meta = tf.compat.v1.saved_model.loader.load(
            sess, list(case.get("tags", [])),
            os.path.join(case_dir, case["saved_model"]))
        sig = meta.signature_def[case.get("signature") or "serving_default"]
        feed_dict = {graph.get_tensor_by_name(sig.inputs[k].name): v
                     for k, v in feeds.items()}
        fetches = [graph.get_tensor_by_name(sig.outputs[k].name)
                   for k in case.get("fetches", [])]
        _refuse_fed_fetches(feed_dict, fetches)
        targets = [graph.get_operation_by_name(n) for n in case.get("targets", [])]
        init = [graph.get_operation_by_name(n) for n in case.get("init_targets", [])]
        _run_steps(sess, case, feed_dict, fetches, targets, init, result_dir, result)


def run_case(case_dir, result_dir):
    """Runs the case with TensorFlow; writes result_dir; returns the code."""
    case_dir = os.path.abspath(case_dir)
    result_dir = os.path.abspath(result_dir)
    with open(os.path.join(case_dir, "case.json")) as f:
        case = json.load(f)
    os.makedirs(result_dir, exist_ok=True)
    result = {"producer": "tensorflow " + tf.__version__, "code": "OK",
              "steps": []}
    cwd = os.getcwd()
    scratch = None
    try:
        result["phase"] = "load"
        feeds = {e["name"]: read_tensor(os.path.join(case_dir, e["file"]))
                 for e in case.get("feeds", [])}
        if case.get("run_in_scratch_dir"):
            scratch = tempfile.mkdtemp(prefix="tf_oracle_")
            for rel in case.get("scratch_inputs", []):
                shutil.copy(os.path.join(case_dir, rel),
                            os.path.join(scratch, os.path.basename(rel)))
            os.chdir(scratch)
        if case.get("saved_model"):
            _run_saved_model_case(case_dir, case, feeds, result_dir, result)
        else:
            _run_graph_case(case_dir, case, feeds, result_dir, result)
    except Exception as e:  # noqa: BLE001 -- every failure is a result.
        code, message = _error_code(e)
        result.update(code=code, message=message)
    finally:
        os.chdir(cwd)
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
    with open(os.path.join(result_dir, "result.json"), "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")
    return result["code"]


def case_dirs(root):
    """Every directory under root holding a case.json, sorted."""
    out = []
    for dirpath, _, files in os.walk(root):
        if "case.json" in files:
            out.append(dirpath)
    return sorted(out)


def main(argv):
    if len(argv) >= 1 and argv[0] == "run" and len(argv) == 3:
        code = run_case(argv[1], argv[2])
        print(code)
        return 0
    if len(argv) == 2 and argv[0] == "tree":
        dirs = case_dirs(argv[1])
        for i, d in enumerate(dirs):
            run_case(d, os.path.join(d, "expected"))
            if (i + 1) % 100 == 0:
                print("tf_oracle: %d / %d cases" % (i + 1, len(dirs)), file=sys.stderr)
        return 0
    if len(argv) == 1 and argv[0] == "serve":
        for line in sys.stdin:
            line = line.strip()
            if not line:
                continue
            try:
                req = json.loads(line)
                reply = {"code": run_case(req["case"], req["result"])}
            except Exception as e:  # noqa: BLE001 -- reported, never fatal.
                reply = {"code": "INTERNAL", "error": "oracle: %r" % (e,)}
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
