"""TensorFlow's inferred output shapes for every case graph under ROOT.

    $STEPFLOW_TF_PYTHON testing/tf_shapes/tf_shapes.py ROOT OUT

For each case directory under ROOT holding a graph (graph.pb or
graph.pbtxt), imports the GraphDef into a tf.Graph (which runs
TensorFlow's C++ shape functions) and writes OUT/<case path>.shapes: one
line per node output, "<node>:<index> <op> <shape>" with the shape as
"?" (unknown rank) or "[2,?,3]", in GraphDef order; or a single line
"ERROR <code> <message>" when TensorFlow refuses the import.
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tf_oracle"))
import tensorflow as tf  # noqa: E402
from tf_oracle import load_graph_def  # noqa: E402


def shape_string(shape):
    if shape.rank is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d)
                          for d in shape.as_list()) + "]"


def shapes_of(gdef):
    lines = []
    with tf.Graph().as_default() as g:
        try:
            tf.graph_util.import_graph_def(gdef, name="")
        except Exception as e:  # TensorFlow's refusal is a result too.
            code = type(e).__name__
            msg = str(e).splitlines()[0] if str(e) else ""
            return ["ERROR %s %s" % (code, msg)]
        for node in gdef.node:
            op = g.get_operation_by_name(node.name)
            for i, out in enumerate(op.outputs):
                lines.append("%s:%d %s %s" % (node.name, i, node.op,
                                              shape_string(out.shape)))
    return lines


def main(argv):
    root, out = argv[1], argv[2]
    n = 0
    for dirpath, _, files in sorted(os.walk(root)):
        graph = next((f for f in ("graph.pb", "graph.pbtxt") if f in files),
                     None)
        if graph is None:
            continue
        rel = os.path.relpath(dirpath, root)
        dest = os.path.join(out, rel + ".shapes")
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "w") as f:
            f.write("\n".join(shapes_of(load_graph_def(os.path.join(dirpath, graph))))
                    + "\n")
        n += 1
    print("wrote shapes of %d graphs under %s" % (n, out))


if __name__ == "__main__":
    main(sys.argv)
