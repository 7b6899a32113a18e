"""Generates the model zoo: every model's oracle case(s) with TensorFlow's
recorded result (README.md beside this file).

  generate_zoo.py OUT_DIR [--only=name1,name2] [--golden]
  generate_zoo.py --list

Writes each model under OUT_DIR/<model name>/ and runs every case it wrote
through TensorFlow (tf_oracle.run_case) into <case>/expected. A case whose
graph has If/Case/While nodes marked _lower_using_switch_merge also gets
<case>/unlowered, with the mark cleared (zoo_common.unlowered_variant), so
TensorFlow runs its functional kernels there. --golden
writes only the models small enough to commit as goldens. Progress (model,
seconds) goes to stderr. Run it with $STEPFLOW_TF_PYTHON
(tools/install_tf.sh).
"""

import argparse
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import zoo_common  # noqa: E402  (imports tf_oracle and TensorFlow)
import keras_frozen  # noqa: E402
import saved_models  # noqa: E402
import tf1_models  # noqa: E402

MODELS = tf1_models.MODELS + keras_frozen.MODELS + saved_models.MODELS


def main(argv):
    parser = argparse.ArgumentParser(
        description="Writes the model zoo's oracle cases and TensorFlow's results.")
    parser.add_argument("out_dir", nargs="?")
    parser.add_argument("--only", default="", help="comma-separated model names")
    parser.add_argument("--list", action="store_true", help="list the models and exit")
    parser.add_argument("--golden", action="store_true",
                        help="only the models committed as goldens")
    args = parser.parse_args(argv)

    models = MODELS
    if args.golden:
        models = [m for m in models if m.golden]
    if args.only:
        wanted = args.only.split(",")
        known = {m.name for m in MODELS}
        unknown = [n for n in wanted if n not in known]
        if unknown:
            parser.error("unknown models: %s" % ", ".join(unknown))
        models = [m for m in models if m.name in wanted]
    if args.list:
        for m in models:
            print("%-26s %-7s %s" % (m.name, "golden" if m.golden else "live", m.summary))
        return 0
    if not args.out_dir:
        parser.error("OUT_DIR is required")

    start = time.time()
    failures = []
    for m in models:
        t0 = time.time()
        model_dir = os.path.join(args.out_dir, m.name)
        shutil.rmtree(model_dir, ignore_errors=True)
        codes = []
        for case_dir in m.build(model_dir):
            variant = zoo_common.unlowered_variant(case_dir)
            for d in [case_dir] + ([variant] if variant else []):
                codes.append(zoo_common.tf_oracle.run_case(d, os.path.join(d, "expected")))
        if any(c != "OK" for c in codes):
            failures.append(m.name)
        print("zoo: %-26s %6.1fs  %d case(s)  TensorFlow: %s" % (
            m.name, time.time() - t0, len(codes), ",".join(sorted(set(codes)))),
            file=sys.stderr)
        sys.stderr.flush()
    print("zoo: %d model(s) in %.1fs" % (len(models), time.time() - start), file=sys.stderr)
    if failures:
        # Every zoo model runs in TensorFlow; an error result is a broken model.
        print("zoo: TensorFlow failed on: %s" % ", ".join(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
