"""Runs one task of a TensorFlow cluster (TensorFlow's own gRPC runtime).

    python tf_server.py <host:port,host:port,...> <task index>

The cluster has one job, "worker"; task i listens on the i-th address.
Prints "listening on <address>" once the server has started, then serves
until killed.
"""

import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402


def main():
  addresses = sys.argv[1].split(",")
  task = int(sys.argv[2])
  cluster = tf.train.ClusterSpec({"worker": addresses})
  server = tf.distribute.Server(cluster, job_name="worker", task_index=task,
                                protocol="grpc", start=True)
  print("listening on %s (%s)" % (addresses[task], server.target), flush=True)
  while True:
    time.sleep(3600)


if __name__ == "__main__":
  main()
