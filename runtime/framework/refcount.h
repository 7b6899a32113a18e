// RefCounted: intrusive, atomic reference counting (TensorFlow's
// core::RefCounted). An object starts with one reference owned by its
// creator; Unref() deletes it when the count reaches zero.
//
// Thread-safety: Ref/Unref may be called concurrently.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_REFCOUNT_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_REFCOUNT_H_

#include <atomic>
#include <cstdint>

namespace stepflow {

class RefCounted {
 public:
  RefCounted() = default;
  RefCounted(const RefCounted&) = delete;
  RefCounted& operator=(const RefCounted&) = delete;

  void Ref() const { ref_.fetch_add(1, std::memory_order_relaxed); }
  // Returns true if this call deleted the object.
  bool Unref() const {
    if (ref_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      delete this;
      return true;
    }
    return false;
  }
  bool RefCountIsOne() const {
    return ref_.load(std::memory_order_acquire) == 1;
  }

 protected:
  virtual ~RefCounted() = default;

 private:
  mutable std::atomic<int64_t> ref_{1};
};

// Unrefs on destruction (like std::unique_ptr for RefCounted).
class ScopedUnref {
 public:
  explicit ScopedUnref(const RefCounted* o) : obj_(o) {}
  ~ScopedUnref() {
    if (obj_ != nullptr) obj_->Unref();
  }
  ScopedUnref(const ScopedUnref&) = delete;
  ScopedUnref& operator=(const ScopedUnref&) = delete;

 private:
  const RefCounted* obj_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_REFCOUNT_H_
