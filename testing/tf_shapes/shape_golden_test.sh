#!/bin/bash
# stepflow's inferred shapes against TensorFlow's recorded ones for the
# committed golden graphs (zoo and op cases), without TensorFlow.
set -euo pipefail
source "$(dirname "$0")/../tf_oracle/live_test_lib.sh" 2>/dev/null ||
  source "$(runfile testing/tf_oracle/live_test_lib.sh)"
exec "$(runfile testing/tf_shapes/shape_check)" \
  --cases="$(runfile testing/tf_goldens)" \
  --shapes="$(runfile testing/tf_shapes/goldens)" \
  --known="$(runfile testing/tf_shapes/known_differences.txt)"
