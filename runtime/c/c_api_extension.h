// stepflow's declared extension of the C API for in-process C++ callers
// (the counterpart of TensorFlow's c_api_experimental.h; not part of the
// stable C header c_api.h). A benchmark or the simulator uses it to run
// C API sessions in its own Env (clock, scheduler, random source) with its
// own rendezvous, and to look at the C++ session behind a handle. Nothing
// outside runtime/c needs the structs behind the handles (c_api_internal.h)
// for that.
//
// Thread-safety: as for the other TF_SessionOptions setters, one thread per
// options object. SessionFromHandle is as thread-safe as the handle: it may
// be called while other threads run the session, not while one deletes it.
#ifndef STEPFLOW_RUNTIME_C_C_API_EXTENSION_H_
#define STEPFLOW_RUNTIME_C_C_API_EXTENSION_H_

#include "runtime/c/c_api.h"
#include "runtime/common/session.h"
#include "runtime/common/session_options.h"
#include "runtime/env/env.h"

namespace stepflow {

// Sessions created with `options` from now on run in `env` (borrowed; it
// must outlive them). Null restores the default, the process Env
// (runtime/env/real/process_env.h).
void SetSessionOptionsEnv(TF_SessionOptions* options, Env* env);

// Sessions created with `options` from now on make each step's rendezvous
// with `factory` (SessionOptions::rendezvous_factory); an empty function
// restores the session's own intra-process rendezvous.
void SetSessionOptionsRendezvousFactory(TF_SessionOptions* options,
                                        RendezvousFactory factory);

// The C++ session behind `session` (owned by the handle, valid until
// TF_DeleteSession, closed or not); null for a null handle.
Session* SessionFromHandle(TF_Session* session);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_C_C_API_EXTENSION_H_
