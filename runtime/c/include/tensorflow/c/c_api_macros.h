/* Export and portability macros shared by the TensorFlow-compatible C
 * headers of stepflow (tensorflow/c/...).
 *
 * TF_CAPI_EXPORT marks every exported function (default ELF visibility, or
 * dllexport/dllimport on Windows). TF_Bool is the one-byte boolean used in
 * C structs. TF_OFFSET_OF_END gives the byte offset just past a member, for
 * versioned structs that carry their own size. */
#ifndef TENSORFLOW_C_C_API_MACROS_H_
#define TENSORFLOW_C_C_API_MACROS_H_

#ifdef SWIG
#define TF_CAPI_EXPORT
#elif defined(_WIN32)
#ifdef TF_COMPILE_LIBRARY
#define TF_CAPI_EXPORT __declspec(dllexport)
#else
#define TF_CAPI_EXPORT __declspec(dllimport)
#endif
#else
#define TF_CAPI_EXPORT __attribute__((visibility("default")))
#endif

#define TF_Bool unsigned char

#define TF_OFFSET_OF_END(TYPE, MEMBER) \
  (offsetof(TYPE, MEMBER) + sizeof(((TYPE*)0)->MEMBER))

#endif /* TENSORFLOW_C_C_API_MACROS_H_ */
