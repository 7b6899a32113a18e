/* The stepflow C API, as included by stepflow's own code: TensorFlow's C API
 * (tensorflow/c/c_api.h and the headers it includes, which state the
 * conventions, ownership and thread-safety contracts) plus the few stepflow
 * additions below.
 *
 * Graph refcount: a TF_Session registers with its TF_Graph; TF_DeleteGraph
 * frees the graph at once if no session is registered, otherwise when the
 * last registered session is deleted (TF_DeleteSession). Before each
 * TF_SessionRun / TF_SessionPRunSetup a session is extended with the
 * operations added to its graph since its previous run; the graph must stay
 * free of cycles (TF_INVALID_ARGUMENT from the run otherwise).
 *
 * The C API owns the execution environment (clock, thread pool, randomness):
 * one per process, created on the first TF_NewSession and never destroyed.
 */
#ifndef STEPFLOW_RUNTIME_C_C_API_H_
#define STEPFLOW_RUNTIME_C_C_API_H_

#include "tensorflow/c/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of operations in the graph (0 for NULL). Thread-safe. */
TF_CAPI_EXPORT extern int TF_GraphNumOperations(TF_Graph* graph);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* STEPFLOW_RUNTIME_C_C_API_H_ */
