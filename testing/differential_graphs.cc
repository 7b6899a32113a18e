#include "testing/differential_graphs.h"

#include <algorithm>
#include <cstdint>
#include <set>

#include "absl/strings/str_cat.h"
#include "proto/attr_value.pb.h"
#include "proto/tensor.pb.h"

namespace stepflow::graph_testing {
namespace {

using Shape = std::vector<int64_t>;

// An endpoint the generator may consume, with what it knows of it.
struct Value {
  std::string endpoint;
  DataType dtype;
  Shape shape;
  // Finite and small for sure (fed or constant quarter steps): the only
  // floats cast to integers, since converting NaN, infinities or values
  // out of the target's range is undefined in TensorFlow (its Cast
  // documentation says so for NaN and infinities; its kernel's C++
  // conversion gives platform-dependent values for the rest).
  bool bounded = false;
};

// Uniform in [lo, hi) whatever the current size (gen::inRange scales with
// size, which would make small cases degenerate).
int Uniform(int lo, int hi) {
  return *rc::gen::resize(rc::kNominalSize, rc::gen::inRange(lo, hi));
}

bool Chance(int percent) { return Uniform(0, 100) < percent; }

const std::vector<Shape>& ShapeCatalog() {
  static const auto* shapes = new std::vector<Shape>{
      {}, {3}, {2, 3}, {1, 3}, {2, 1}, {3, 2}, {0, 3}, {2}, {1}};
  return *shapes;
}

int64_t NumElements(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

// Numpy-style broadcast of two shapes; false when they do not broadcast.
bool Broadcast(const Shape& a, const Shape& b, Shape* out) {
  const size_t rank = std::max(a.size(), b.size());
  Shape r(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return false;
    r[i] = da == 1 ? db : da;
  }
  *out = r;
  return true;
}

AttrValue TypeAttr(DataType dt) {
  AttrValue v;
  v.set_type(dt);
  return v;
}

class Builder {
 public:
  explicit Builder(const DifferentialOptions& options) : options_(options) {}

  DifferentialGraph Build() {
    const int n = *rc::gen::inRange(1, options_.max_nodes + 1);
    for (int i = 0; i < n; ++i) Step();
    Finish();
    return std::move(out_);
  }

 private:
  std::string NewName(const std::string& stem) {
    return absl::StrCat(stem, next_id_++);
  }

  NodeDef* AddNode(const std::string& name, const std::string& op,
                   const std::vector<std::string>& inputs) {
    NodeDef* n = out_.graph.add_node();
    n->set_name(name);
    n->set_op(op);
    for (const std::string& in : inputs) n->add_input(in);
    return n;
  }

  void SetType(NodeDef* n, const char* attr, DataType dt) {
    (*n->mutable_attr())[attr] = TypeAttr(dt);
  }

  // Values of `dtype` (any dtype when DT_INVALID).
  std::vector<int> Candidates(DataType dtype) const {
    std::vector<int> out;
    for (size_t i = 0; i < pool_.size(); ++i) {
      if (dtype == DT_INVALID || pool_[i].dtype == dtype) out.push_back(i);
    }
    return out;
  }

  const Value* Pick(DataType dtype) {
    std::vector<int> c = Candidates(dtype);
    if (c.empty()) return nullptr;
    // Prefer recent values so graphs grow deep rather than wide.
    const int k = static_cast<int>(c.size());
    const int back = std::min(k - 1, Uniform(0, std::min(k, 6)));
    return &pool_[c[k - 1 - back]];
  }

  // A value of `dtype` whose shape broadcasts with `with` (when
  // `compatible`), else any of that dtype.
  const Value* PickPartner(DataType dtype, const Shape& with, bool compatible) {
    std::vector<int> ok;
    for (int i : Candidates(dtype)) {
      Shape tmp;
      if (!compatible || Broadcast(with, pool_[i].shape, &tmp)) ok.push_back(i);
    }
    if (ok.empty()) return nullptr;
    return &pool_[ok[Uniform(0, static_cast<int>(ok.size()))]];
  }

  void AddValue(const std::string& endpoint, DataType dt, const Shape& shape,
                bool bounded = false) {
    pool_.push_back(Value{endpoint, dt, shape, bounded});
  }

  Tensor RandomTensor(DataType dt, const Shape& shape) {
    Tensor t(dt, TensorShape(shape));
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      const int q = Uniform(-12, 13);  // quarter steps in [-3, 3]
      if (dt == DT_FLOAT) {
        t.flat<float>()(i) = q / 4.0f;
      } else if (dt == DT_INT32) {
        t.flat<int32_t>()(i) = q / 2;
      } else {
        t.flat<bool>()(i) = q > 0;
      }
    }
    return t;
  }

  std::string AddConst(const std::string& name, const Tensor& t) {
    NodeDef* n = AddNode(name, "Const", {});
    SetType(n, "dtype", t.dtype());
    TensorProto* p = (*n->mutable_attr())["value"].mutable_tensor();
    p->set_dtype(t.dtype());
    for (int64_t d : t.shape().dim_sizes())
      p->mutable_tensor_shape()->add_dim()->set_size(d);
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      if (t.dtype() == DT_FLOAT) p->add_float_val(t.flat<float>()(i));
      if (t.dtype() == DT_INT32) p->add_int_val(t.flat<int32_t>()(i));
      if (t.dtype() == DT_BOOL) p->add_bool_val(t.flat<bool>()(i));
    }
    return name;
  }

  std::string AddIntVector(const std::string& name,
                           const std::vector<int32_t>& v) {
    Tensor t(DT_INT32, TensorShape({static_cast<int64_t>(v.size())}));
    for (size_t i = 0; i < v.size(); ++i) t.flat<int32_t>()(i) = v[i];
    return AddConst(name, t);
  }

  std::string AddIntScalar(const std::string& name, int32_t v) {
    return AddConst(name, Tensor::Scalar<int32_t>(v));
  }

  DataType RandomDtype() {
    return *rc::gen::weightedElement<DataType>(
        {{6, DT_FLOAT}, {2, DT_INT32}, {1, DT_BOOL}});
  }

  void AddSource() {
    const DataType dt = RandomDtype();
    const Shape shape = ShapeCatalog()[Uniform(0, ShapeCatalog().size())];
    const std::string name = NewName("n");
    Tensor value = RandomTensor(dt, shape);
    if (Chance(50)) {
      NodeDef* n = AddNode(name, "Placeholder", {});
      SetType(n, "dtype", dt);
      auto* s = (*n->mutable_attr())["shape"].mutable_shape();
      if (Chance(50)) {
        s->set_unknown_rank(true);
      } else {
        for (int64_t d : shape) s->add_dim()->set_size(d);
      }
      out_.feeds.emplace_back(name, value);
    } else {
      AddConst(name, value);
    }
    AddValue(name, dt, shape, /*bounded=*/true);
  }

  void AddUnary() {
    const Value* x = Pick(DT_INVALID);
    if (x == nullptr) return AddSource();
    std::string op;
    if (x->dtype == DT_FLOAT) {
      op = *rc::gen::weightedElement<std::string>({{3, "Neg"},
                                                   {3, "Abs"},
                                                   {3, "Square"},
                                                   {2, "Relu"},
                                                   {2, "Floor"},
                                                   {2, "Sign"},
                                                   {1, "Tanh"},
                                                   {1, "Sigmoid"},
                                                   {1, "Exp"},
                                                   {1, "Sqrt"},
                                                   {1, "Reciprocal"},
                                                   {1, "Log"},
                                                   {2, "Identity"}});
    } else if (x->dtype == DT_INT32) {
      op = *rc::gen::element<std::string>("Neg", "Abs", "Square", "Identity");
    } else {
      op = *rc::gen::element<std::string>("LogicalNot", "Identity");
    }
    const std::string name = NewName("n");
    NodeDef* n = AddNode(name, op, {x->endpoint});
    if (op != "LogicalNot") SetType(n, "T", x->dtype);
    AddValue(name, x->dtype, x->shape);
  }

  void AddBinary() {
    const Value* a = Pick(*rc::gen::weightedElement<DataType>(
        {{5, DT_FLOAT}, {2, DT_INT32}, {1, DT_BOOL}}));
    if (a == nullptr) return AddUnary();
    const Value a_copy = *a;
    const Value* b = PickPartner(a_copy.dtype, a_copy.shape, Chance(97));
    if (b == nullptr) return AddUnary();
    std::string op;
    DataType out_type = a_copy.dtype;
    const int kind = Uniform(0, 10);
    if (a_copy.dtype == DT_BOOL) {
      op = *rc::gen::element<std::string>("LogicalAnd", "LogicalOr", "Equal",
                                          "NotEqual");
    } else if (kind < 3) {
      op = *rc::gen::element<std::string>("Less", "Greater", "LessEqual",
                                          "GreaterEqual", "Equal", "NotEqual");
      out_type = DT_BOOL;
    } else if (a_copy.dtype == DT_FLOAT) {
      op = *rc::gen::weightedElement<std::string>({{3, "Add"},
                                                   {3, "AddV2"},
                                                   {3, "Sub"},
                                                   {3, "Mul"},
                                                   {2, "Maximum"},
                                                   {2, "Minimum"},
                                                   {2, "RealDiv"},
                                                   {1, "SquaredDifference"},
                                                   {1, "Pow"},
                                                   {1, "FloorDiv"}});
    } else {
      op = *rc::gen::weightedElement<std::string>({{3, "AddV2"},
                                                   {3, "Sub"},
                                                   {3, "Mul"},
                                                   {2, "Maximum"},
                                                   {2, "Minimum"},
                                                   {1, "FloorDiv"},
                                                   {1, "FloorMod"}});
    }
    Shape shape;
    if (!Broadcast(a_copy.shape, b->shape, &shape)) shape = a_copy.shape;
    const std::string name = NewName("n");
    NodeDef* n = AddNode(name, op, {a_copy.endpoint, b->endpoint});
    if (op != "LogicalAnd" && op != "LogicalOr") SetType(n, "T", a_copy.dtype);
    if (op == "Equal" || op == "NotEqual") {
      (*n->mutable_attr())["incompatible_shape_error"].set_b(true);
    }
    AddValue(name, out_type, shape);
  }

  void AddSelect() {
    const Value* c = Pick(DT_BOOL);
    if (c == nullptr) return AddBinary();
    const Value cond = *c;
    const Value* t = PickPartner(DT_FLOAT, cond.shape, Chance(90));
    if (t == nullptr) return AddBinary();
    const Value tv = *t;
    const Value* e = PickPartner(DT_FLOAT, tv.shape, Chance(90));
    if (e == nullptr) return AddBinary();
    const std::string name = NewName("n");
    // SelectV2 broadcasts all three; Select wants equal shapes (or a
    // vector condition over the first dimension).
    const bool v2 = Chance(70);
    NodeDef* n = AddNode(name, v2 ? "SelectV2" : "Select",
                         {cond.endpoint, tv.endpoint, e->endpoint});
    SetType(n, "T", DT_FLOAT);
    Shape s1, s2;
    if (!Broadcast(cond.shape, tv.shape, &s1) ||
        !Broadcast(s1, e->shape, &s2)) {
      s2 = tv.shape;
    }
    AddValue(name, DT_FLOAT, v2 ? s2 : tv.shape);
  }

  void AddReduction() {
    const Value* x = Pick(Chance(75) ? DT_FLOAT : DT_INT32);
    if (x == nullptr) return AddUnary();
    const Value v = *x;
    const std::string op =
        *rc::gen::element<std::string>("Sum", "Mean", "Max", "Min", "Prod");
    const int rank = static_cast<int>(v.shape.size());
    // Mostly a valid axis (negative ones too); sometimes out of range.
    int axis = rank > 0 ? Uniform(-rank, rank) : 0;
    if (Chance(8)) axis = rank + Uniform(0, 2);
    const bool keep_dims = Chance(40);
    const std::string name = NewName("n");
    const std::string axis_name = AddIntScalar(name + "/axis", axis);
    NodeDef* n = AddNode(name, op, {v.endpoint, axis_name});
    SetType(n, "T", v.dtype);
    SetType(n, "Tidx", DT_INT32);
    (*n->mutable_attr())["keep_dims"].set_b(keep_dims);
    Shape shape = v.shape;
    if (rank > 0 && axis >= -rank && axis < rank) {
      const int a = axis < 0 ? axis + rank : axis;
      if (keep_dims) {
        shape[a] = 1;
      } else {
        shape.erase(shape.begin() + a);
      }
    }
    AddValue(name, v.dtype, shape);
  }

  void AddMatMul() {
    std::vector<int> mats;
    for (int i : Candidates(DT_FLOAT)) {
      if (pool_[i].shape.size() == 2) mats.push_back(i);
    }
    if (mats.empty()) return AddBinary();
    const Value a = pool_[mats[Uniform(0, mats.size())]];
    const bool ta = Chance(30), tb = Chance(30);
    const int64_t k = ta ? a.shape[0] : a.shape[1];
    std::vector<int> partners;
    for (int i : mats) {
      const Shape& s = pool_[i].shape;
      if ((tb ? s[1] : s[0]) == k) partners.push_back(i);
    }
    const Value b = (!partners.empty() && Chance(97))
                        ? pool_[partners[Uniform(0, partners.size())]]
                        : pool_[mats[Uniform(0, mats.size())]];
    const std::string name = NewName("n");
    NodeDef* n = AddNode(name, "MatMul", {a.endpoint, b.endpoint});
    SetType(n, "T", DT_FLOAT);
    (*n->mutable_attr())["transpose_a"].set_b(ta);
    (*n->mutable_attr())["transpose_b"].set_b(tb);
    AddValue(name, DT_FLOAT,
             {ta ? a.shape[1] : a.shape[0], tb ? b.shape[0] : b.shape[1]});
  }

  void AddShapeOp() {
    const Value* x = Pick(DT_INVALID);
    if (x == nullptr) return AddSource();
    const Value v = *x;
    const std::string name = NewName("n");
    const int which = Uniform(0, 6);
    const int rank = static_cast<int>(v.shape.size());
    if (which == 0) {  // Reshape to a flat vector, or to [-1, 1], or wrong.
      std::vector<int32_t> to;
      Shape shape;
      const int form = *rc::gen::weightedElement<int>({{4, 0}, {4, 1}, {1, 2}});
      if (form == 0) {
        to = {-1};
        shape = {NumElements(v.shape)};
      } else if (form == 1) {
        to = {-1, 1};
        shape = {NumElements(v.shape), 1};
      } else {
        to = {static_cast<int32_t>(NumElements(v.shape) + 1)};
        shape = {NumElements(v.shape) + 1};
      }
      const std::string s = AddIntVector(name + "/shape", to);
      NodeDef* n = AddNode(name, "Reshape", {v.endpoint, s});
      SetType(n, "T", v.dtype);
      SetType(n, "Tshape", DT_INT32);
      AddValue(name, v.dtype, shape);
    } else if (which == 1 && rank == 2) {
      const std::string p = AddIntVector(name + "/perm", {1, 0});
      NodeDef* n = AddNode(name, "Transpose", {v.endpoint, p});
      SetType(n, "T", v.dtype);
      SetType(n, "Tperm", DT_INT32);
      AddValue(name, v.dtype, {v.shape[1], v.shape[0]});
    } else if (which == 2) {
      const int axis = Uniform(-rank - 1, rank + 1);
      const std::string a = AddIntScalar(name + "/dim", axis);
      NodeDef* n = AddNode(name, "ExpandDims", {v.endpoint, a});
      SetType(n, "T", v.dtype);
      SetType(n, "Tdim", DT_INT32);
      Shape shape = v.shape;
      shape.insert(shape.begin() + (axis < 0 ? axis + rank + 1 : axis), 1);
      AddValue(name, v.dtype, shape);
    } else if (which == 3 && rank >= 1) {
      // Usually a value with the same dimensions after the first.
      std::vector<int> same;
      for (int i : Candidates(v.dtype)) {
        const Shape& s = pool_[i].shape;
        if (s.size() == v.shape.size() &&
            std::equal(s.begin() + 1, s.end(), v.shape.begin() + 1)) {
          same.push_back(i);
        }
      }
      const Value w =
          (!same.empty() && Chance(90))
              ? pool_[same[Uniform(0, same.size())]]
              : pool_[Candidates(
                    v.dtype)[Uniform(0, Candidates(v.dtype).size())]];
      const std::string a = AddIntScalar(name + "/axis", 0);
      NodeDef* n = AddNode(name, "ConcatV2", {v.endpoint, w.endpoint, a});
      SetType(n, "T", v.dtype);
      SetType(n, "Tidx", DT_INT32);
      (*n->mutable_attr())["N"].set_i(2);
      Shape shape = v.shape;
      if (w.shape.size() == v.shape.size()) shape[0] += w.shape[0];
      AddValue(name, v.dtype, shape);
    } else if (which == 4) {
      NodeDef* n = AddNode(name, "Pack", {v.endpoint, v.endpoint});
      SetType(n, "T", v.dtype);
      (*n->mutable_attr())["N"].set_i(2);
      (*n->mutable_attr())["axis"].set_i(0);
      Shape shape = v.shape;
      shape.insert(shape.begin(), 2);
      AddValue(name, v.dtype, shape);
    } else if (v.dtype == DT_FLOAT && !v.bounded) {
      NodeDef* n = AddNode(name, "Identity", {v.endpoint});
      SetType(n, "T", v.dtype);
      AddValue(name, v.dtype, v.shape);
    } else if (v.dtype != DT_BOOL) {
      // Cast between float and int32 (floats truncate toward zero).
      const DataType to = v.dtype == DT_FLOAT ? DT_INT32 : DT_FLOAT;
      NodeDef* n = AddNode(name, "Cast", {v.endpoint});
      SetType(n, "SrcT", v.dtype);
      SetType(n, "DstT", to);
      (*n->mutable_attr())["Truncate"].set_b(false);
      AddValue(name, to, v.shape);
    } else {
      NodeDef* n = AddNode(name, "Cast", {v.endpoint});
      SetType(n, "SrcT", DT_BOOL);
      SetType(n, "DstT", DT_FLOAT);
      (*n->mutable_attr())["Truncate"].set_b(false);
      AddValue(name, DT_FLOAT, v.shape);
    }
  }

  // tf.cond in TensorFlow 1.x: Switch the operand on a scalar predicate,
  // apply one op per branch, Merge. Only the Merge joins the pool.
  void AddCond() {
    std::vector<int> preds;
    for (int i : Candidates(DT_BOOL)) {
      if (pool_[i].shape.empty()) preds.push_back(i);
    }
    const Value* x = Pick(DT_FLOAT);
    if (x == nullptr) return AddUnary();
    const Value v = *x;
    std::string pred;
    const std::string scope = NewName("cond");
    if (preds.empty() || Chance(30)) {
      pred = scope + "/pred";
      NodeDef* p = AddNode(pred, "Placeholder", {});
      SetType(p, "dtype", DT_BOOL);
      (*p->mutable_attr())["shape"].mutable_shape();
      out_.feeds.emplace_back(pred, Tensor::Scalar<bool>(Chance(50)));
    } else {
      pred = pool_[preds[Uniform(0, preds.size())]].endpoint;
    }
    const std::string sw = scope + "/Switch";
    NodeDef* s = AddNode(sw, "Switch", {v.endpoint, pred});
    SetType(s, "T", DT_FLOAT);
    const std::string f = scope + "/false";
    const std::string t = scope + "/true";
    SetType(
        AddNode(f, *rc::gen::element<std::string>("Neg", "Square", "Identity"),
                {sw + ":0"}),
        "T", DT_FLOAT);
    SetType(
        AddNode(t, *rc::gen::element<std::string>("Abs", "Relu", "Identity"),
                {sw + ":1"}),
        "T", DT_FLOAT);
    const std::string merge = scope + "/Merge";
    NodeDef* m = AddNode(merge, "Merge", {f, t});
    SetType(m, "T", DT_FLOAT);
    (*m->mutable_attr())["N"].set_i(2);
    AddValue(merge, DT_FLOAT, v.shape);
  }

  // tf.while_loop in TensorFlow 1.x: i = 0; acc = x; while i < n:
  // acc = op(acc, c); i += 1, with n and c loop constants. The Exit of acc
  // joins the pool.
  void AddWhile() {
    const Value* x = Pick(DT_FLOAT);
    if (x == nullptr) return AddUnary();
    const Value acc0 = *x;
    // The loop constant must keep acc's shape: acc's own shape or a scalar.
    const Value* c = nullptr;
    for (int i : Candidates(DT_FLOAT)) {
      if (pool_[i].shape == acc0.shape || pool_[i].shape.empty()) {
        if (c == nullptr || Chance(50)) c = &pool_[i];
      }
    }
    const Value cv = *c;
    const std::string w = NewName("while");
    const std::string frame = w + "/while_context";
    const std::string i0 = AddIntScalar(w + "/Const", 0);
    const std::string n = AddIntScalar(w + "/n", Uniform(0, 4));
    auto enter = [&](const std::string& name, const std::string& in,
                     DataType dt, bool is_constant) {
      NodeDef* e = AddNode(name, "Enter", {in});
      SetType(e, "T", dt);
      (*e->mutable_attr())["frame_name"].set_s(frame);
      (*e->mutable_attr())["is_constant"].set_b(is_constant);
      (*e->mutable_attr())["parallel_iterations"].set_i(10);
    };
    enter(w + "/Enter", i0, DT_INT32, false);
    enter(w + "/Enter_1", acc0.endpoint, DT_FLOAT, false);
    enter(w + "/Less/Enter", n, DT_INT32, true);
    enter(w + "/body/Enter", cv.endpoint, DT_FLOAT, true);
    auto merge = [&](const std::string& name, const std::string& a,
                     const std::string& b, DataType dt) {
      NodeDef* m = AddNode(name, "Merge", {a, b});
      SetType(m, "T", dt);
      (*m->mutable_attr())["N"].set_i(2);
    };
    merge(w + "/Merge", w + "/Enter", w + "/NextIteration", DT_INT32);
    merge(w + "/Merge_1", w + "/Enter_1", w + "/NextIteration_1", DT_FLOAT);
    SetType(AddNode(w + "/Less", "Less", {w + "/Merge", w + "/Less/Enter"}),
            "T", DT_INT32);
    AddNode(w + "/LoopCond", "LoopCond", {w + "/Less"});
    auto sw = [&](const std::string& name, const std::string& in, DataType dt) {
      NodeDef* s = AddNode(name, "Switch", {in, w + "/LoopCond"});
      SetType(s, "T", dt);
    };
    sw(w + "/Switch", w + "/Merge", DT_INT32);
    sw(w + "/Switch_1", w + "/Merge_1", DT_FLOAT);
    SetType(AddNode(w + "/Identity", "Identity", {w + "/Switch:1"}), "T",
            DT_INT32);
    SetType(AddNode(w + "/Identity_1", "Identity", {w + "/Switch_1:1"}), "T",
            DT_FLOAT);
    // A constant inside the loop hangs off the pivot by a control edge.
    Tensor one = Tensor::Scalar<int32_t>(1);
    AddConst(w + "/add/y", one);
    out_.graph.mutable_node(out_.graph.node_size() - 1)
        ->add_input("^" + w + "/Identity");
    SetType(AddNode(w + "/add", "AddV2", {w + "/Identity", w + "/add/y"}), "T",
            DT_INT32);
    const std::string body_op =
        *rc::gen::element<std::string>("AddV2", "Mul", "Maximum", "Sub");
    SetType(
        AddNode(w + "/body", body_op, {w + "/Identity_1", w + "/body/Enter"}),
        "T", DT_FLOAT);
    SetType(AddNode(w + "/NextIteration", "NextIteration", {w + "/add"}), "T",
            DT_INT32);
    SetType(AddNode(w + "/NextIteration_1", "NextIteration", {w + "/body"}),
            "T", DT_FLOAT);
    SetType(AddNode(w + "/Exit", "Exit", {w + "/Switch"}), "T", DT_INT32);
    SetType(AddNode(w + "/Exit_1", "Exit", {w + "/Switch_1"}), "T", DT_FLOAT);
    AddValue(w + "/Exit_1", DT_FLOAT, acc0.shape);
    AddValue(w + "/Exit", DT_INT32, {});
  }

  // A ref variable initialised from a Const under "init", updated each
  // step by AssignAdd of a pool value, and read after the update.
  void AddVariable() {
    const Value* d = Pick(DT_FLOAT);
    if (d == nullptr) return AddSource();
    const Value delta = *d;
    const std::string v = NewName("var");
    // Usually the delta's own shape (AssignAdd does not broadcast).
    const Shape shape = Chance(90)
                            ? delta.shape
                            : ShapeCatalog()[Uniform(0, ShapeCatalog().size())];
    NodeDef* var = AddNode(v, "VariableV2", {});
    SetType(var, "dtype", DT_FLOAT);
    auto* s = (*var->mutable_attr())["shape"].mutable_shape();
    for (int64_t dim : shape) s->add_dim()->set_size(dim);
    (*var->mutable_attr())["container"].set_s("");
    (*var->mutable_attr())["shared_name"].set_s("");
    const std::string init_value =
        AddConst(v + "/initial_value", RandomTensor(DT_FLOAT, shape));
    NodeDef* assign = AddNode(v + "/Assign", "Assign", {v, init_value});
    SetType(assign, "T", DT_FLOAT);
    (*assign->mutable_attr())["validate_shape"].set_b(true);
    (*assign->mutable_attr())["use_locking"].set_b(true);
    (*assign->mutable_attr())["_class"].mutable_list()->add_s("loc:@" + v);
    init_deps_.push_back(v + "/Assign");
    NodeDef* add = AddNode(v + "/AssignAdd", "AssignAdd", {v, delta.endpoint});
    SetType(add, "T", DT_FLOAT);
    (*add->mutable_attr())["use_locking"].set_b(false);
    (*add->mutable_attr())["_class"].mutable_list()->add_s("loc:@" + v);
    NodeDef* read =
        AddNode(v + "/read", "Identity", {v, "^" + v + "/AssignAdd"});
    SetType(read, "T", DT_FLOAT);
    variable_reads_.push_back(v + "/read");
    AddValue(v + "/read", DT_FLOAT, shape);
  }

  void Step() {
    if (pool_.empty()) return AddSource();
    const int kind = *rc::gen::weightedElement<int>(
        {{3, 0},
         {4, 1},
         {6, 2},
         {1, 3},
         {2, 4},
         {2, 5},
         {2, 6},
         {options_.allow_control_flow ? 1 : 0, 7},
         {options_.allow_control_flow ? 1 : 0, 8},
         {options_.allow_variables ? 1 : 0, 9}});
    switch (kind) {
      case 0:
        return AddSource();
      case 1:
        return AddUnary();
      case 2:
        return AddBinary();
      case 3:
        return AddSelect();
      case 4:
        return AddReduction();
      case 5:
        return AddMatMul();
      case 6:
        return AddShapeOp();
      case 7:
        return AddCond();
      case 8:
        return AddWhile();
      default:
        return AddVariable();
    }
  }

  bool IsFed(const std::string& endpoint) const {
    for (const auto& [name, value] : out_.feeds) {
      if (name == endpoint) return true;
    }
    return false;
  }

  void Finish() {
    // Fetch the newest value and a few others; every variable read. Never a
    // fed endpoint: TensorFlow's runtime refuses a tensor both fed and
    // fetched (its Python client answers such a fetch from the feeds).
    if (IsFed(pool_.back().endpoint)) AddUnary();
    if (IsFed(pool_.back().endpoint)) {
      const Value v = pool_.back();
      const std::string name = NewName("n");
      SetType(AddNode(name, "Identity", {v.endpoint}), "T", v.dtype);
      AddValue(name, v.dtype, v.shape);
    }
    out_.fetches.push_back(pool_.back().endpoint);
    // Every other value no node consumes, so that every node runs: an op
    // that fails must fail the step in both systems (TensorFlow refuses
    // statically bad shapes at import even on nodes a step would prune).
    std::set<std::string> consumed;
    for (const NodeDef& n : out_.graph.node()) {
      for (const std::string& in : n.input()) {
        consumed.insert(in.size() > 2 && in.substr(in.size() - 2) == ":0"
                            ? in.substr(0, in.size() - 2)
                            : in);
      }
    }
    for (const Value& v : pool_) {
      const std::string& e = v.endpoint;
      if (!IsFed(e) && consumed.count(e) == 0 &&
          std::find(out_.fetches.begin(), out_.fetches.end(), e) ==
              out_.fetches.end()) {
        out_.fetches.push_back(e);
      }
    }
    for (const std::string& r : variable_reads_) {
      if (std::find(out_.fetches.begin(), out_.fetches.end(), r) ==
          out_.fetches.end()) {
        out_.fetches.push_back(r);
      }
    }
    if (!init_deps_.empty()) {
      std::vector<std::string> deps;
      for (const std::string& d : init_deps_) deps.push_back("^" + d);
      AddNode("init", "NoOp", deps);
      out_.init_targets = {"init"};
      out_.steps = 3;
    }
    out_.graph.mutable_versions()->set_producer(1205);
  }

  const DifferentialOptions options_;
  DifferentialGraph out_;
  std::vector<Value> pool_;
  std::vector<std::string> init_deps_;
  std::vector<std::string> variable_reads_;
  int next_id_ = 0;
};

}  // namespace

void showValue(const DifferentialGraph& g, std::ostream& os) {
  os << g.graph.DebugString();
  for (const auto& [name, t] : g.feeds) {
    os << "feed " << name << " = " << t.DebugString(16) << "\n";
  }
  os << "fetches:";
  for (const std::string& f : g.fetches) os << " " << f;
  os << "\ninit:";
  for (const std::string& t : g.init_targets) os << " " << t;
  os << "\nsteps: " << g.steps << "\n";
}

rc::Gen<DifferentialGraph> GenDifferentialGraph(
    const DifferentialOptions& options) {
  return rc::gen::exec([options] { return Builder(options).Build(); });
}

}  // namespace stepflow::graph_testing
