// Gradients of the math ops: unary elementwise functions, broadcasting
// binary arithmetic, sums, reductions, matrix products, and the ops with no
// gradient (comparisons, integer and shape arithmetic). The formulas are
// TensorFlow's (the same function of dy; the gradient ops TensorFlow uses
// where it has them: SqrtGrad, TanhGrad, ...).
#include <vector>

#include "runtime/c/c_api.h"
#include "runtime/c/gradient_builder.h"
#include "runtime/c/gradient_registry.h"

namespace stepflow {
namespace c_api {
namespace {

void IdentityGrad(GradBuilder&, TF_Operation*, const Outputs& dy, Outputs* dx) {
  *dx = {dy[0]};
}

void NegGrad(GradBuilder& b, TF_Operation*, const Outputs& dy, Outputs* dx) {
  *dx = {b.Neg(dy[0])};
}

void AbsGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy, Outputs* dx) {
  *dx = {b.Mul(dy[0], b.Op("Sign", {OpInput(op, 0)}))};
}

void SquareGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
                Outputs* dx) {
  TF_Output x = OpInput(op, 0);
  *dx = {b.Mul(dy[0], b.Mul(x, b.ScalarLike(2, GradBuilder::Type(x))))};
}

// d/dx f(x) = G(y, dy) for the ops with a registered "<Op>Grad".
template <const char* kGradOp>
void OutputGradOp(GradBuilder& b, TF_Operation* op, const Outputs& dy,
                  Outputs* dx) {
  *dx = {b.Op(kGradOp, {OpOutput(op, 0), dy[0]})};
}
constexpr char kSqrtGrad[] = "SqrtGrad";
constexpr char kRsqrtGrad[] = "RsqrtGrad";
constexpr char kTanhGrad[] = "TanhGrad";
constexpr char kSigmoidGrad[] = "SigmoidGrad";
constexpr char kReciprocalGrad[] = "ReciprocalGrad";

void ExpGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy, Outputs* dx) {
  *dx = {b.Mul(dy[0], OpOutput(op, 0))};
}

void LogGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy, Outputs* dx) {
  *dx = {b.Mul(dy[0], b.Op("Reciprocal", {OpInput(op, 0)}))};
}

void Log1pGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
               Outputs* dx) {
  TF_Output x = OpInput(op, 0);
  TF_Output one = b.ScalarLike(1, GradBuilder::Type(x));
  *dx = {b.Mul(dy[0], b.Op("Reciprocal", {b.Add(one, x)}))};
}

void SinGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy, Outputs* dx) {
  *dx = {b.Mul(dy[0], b.Op("Cos", {OpInput(op, 0)}))};
}

void CosGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy, Outputs* dx) {
  *dx = {b.Mul(dy[0], b.Neg(b.Op("Sin", {OpInput(op, 0)})))};
}

void AddGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy, Outputs* dx) {
  dx->assign(2, NoGradient());
  b.ReduceBroadcast(OpInput(op, 0), OpInput(op, 1), dy[0], dy[0], &(*dx)[0],
                    &(*dx)[1]);
}

void SubGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy, Outputs* dx) {
  dx->assign(2, NoGradient());
  b.ReduceBroadcast(OpInput(op, 0), OpInput(op, 1), dy[0], b.Neg(dy[0]),
                    &(*dx)[0], &(*dx)[1]);
}

void MulGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy, Outputs* dx) {
  TF_Output x = OpInput(op, 0), y = OpInput(op, 1);
  dx->assign(2, NoGradient());
  b.ReduceBroadcast(x, y, b.Mul(dy[0], y), b.Mul(x, dy[0]), &(*dx)[0],
                    &(*dx)[1]);
}

void DivGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy, Outputs* dx) {
  TF_Output x = OpInput(op, 0), y = OpInput(op, 1);
  // d/dx = dy / y; d/dy = dy * (-x / y / y).
  TF_Output gy = b.Mul(dy[0], b.Div(b.Div(b.Neg(x), y), y));
  dx->assign(2, NoGradient());
  b.ReduceBroadcast(x, y, b.Div(dy[0], y), gy, &(*dx)[0], &(*dx)[1]);
}

void SquaredDifferenceGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
                           Outputs* dx) {
  TF_Output x = OpInput(op, 0), y = OpInput(op, 1);
  TF_Output two = b.ScalarLike(2, GradBuilder::Type(x));
  TF_Output g = b.Mul(dy[0], b.Mul(two, b.Sub(x, y)));
  dx->assign(2, NoGradient());
  b.ReduceBroadcast(x, y, g, b.Neg(g), &(*dx)[0], &(*dx)[1]);
}

// Maximum and Minimum: dy goes to x where `x cmp y` holds (ties to x), to
// y elsewhere.
template <const char* kCmp>
void MaxMinGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
                Outputs* dx) {
  TF_Output x = OpInput(op, 0), y = OpInput(op, 1);
  TF_Output mask = b.Op(kCmp, {x, y});
  TF_Output zeros = b.ZerosLike(dy[0]);
  dx->assign(2, NoGradient());
  b.ReduceBroadcast(x, y, b.Op("SelectV2", {mask, dy[0], zeros}),
                    b.Op("SelectV2", {mask, zeros, dy[0]}), &(*dx)[0],
                    &(*dx)[1]);
}
constexpr char kGreaterEqual[] = "GreaterEqual";
constexpr char kLessEqual[] = "LessEqual";

void PowGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy, Outputs* dx) {
  TF_Output x = OpInput(op, 0), y = OpInput(op, 1), z = OpOutput(op, 0);
  TF_DataType t = GradBuilder::Type(x);
  // d/dx = dy * y * x^(y-1); d/dy = dy * z * log(x), taken as 0 where x <= 0.
  TF_Output gx =
      b.Mul(dy[0], b.Mul(y, b.Op("Pow", {x, b.Sub(y, b.ScalarLike(1, t))})));
  TF_Output zeros = b.ZerosLike(x);
  TF_Output positive = b.Op("Greater", {x, zeros});
  TF_Output safe_x = b.Op("SelectV2", {positive, x, b.OnesLike(x)});
  TF_Output log_x = b.Op("SelectV2", {positive, b.Op("Log", {safe_x}), zeros});
  TF_Output gy = b.Mul(dy[0], b.Mul(z, log_x));
  dx->assign(2, NoGradient());
  b.ReduceBroadcast(x, y, gx, gy, &(*dx)[0], &(*dx)[1]);
}

void AddNGrad(GradBuilder&, TF_Operation* op, const Outputs& dy, Outputs* dx) {
  dx->assign(TF_OperationNumInputs(op), dy[0]);
}

// dy broadcast back over the reduced axes of Sum(x, axes).
TF_Output SumBackprop(GradBuilder& b, TF_Operation* op, TF_Output dy) {
  TF_Output x = OpInput(op, 0);
  TF_Output shape = b.Shape(x);
  TF_Output kept = b.Reshape(dy, b.ReducedShape(shape, OpInput(op, 1)));
  return b.Op("BroadcastTo", {kept, shape});
}

void SumGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy, Outputs* dx) {
  *dx = {SumBackprop(b, op, dy[0]), NoGradient()};
}

void MeanGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
              Outputs* dx) {
  TF_Output x = OpInput(op, 0);
  TF_Output all = b.ConstInt32({0}, false);
  TF_Output in_size = b.Op("Prod", {b.Shape(x), all});
  TF_Output out_size = b.Op(
      "Maximum",
      {b.Op("Prod", {b.Shape(OpOutput(op, 0)), all}), b.ConstInt32({1}, true)});
  TF_Output count =
      b.Cast(b.Op("FloorDiv", {in_size, out_size}), GradBuilder::Type(x));
  *dx = {b.Div(SumBackprop(b, op, dy[0]), count), NoGradient()};
}

// Max and Min: dy is shared equally by the elements equal to the result.
void MaxMinReductionGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
                         Outputs* dx) {
  TF_Output x = OpInput(op, 0);
  TF_Output shape = b.Shape(x);
  TF_Output reduced = b.ReducedShape(shape, OpInput(op, 1));
  TF_Output y = b.Reshape(OpOutput(op, 0), reduced);
  TF_Output g = b.Reshape(dy[0], reduced);
  TF_Output hits =
      b.Cast(b.Op("Equal", {y, x},
                  [](TF_OperationDescription* d) {
                    TF_SetAttrBool(d, "incompatible_shape_error", true);
                  }),
             GradBuilder::Type(x));
  TF_Output count = b.Sum(hits, OpInput(op, 1), true);
  *dx = {b.Mul(b.Div(hits, count), g), NoGradient()};
}

// The gradients of x and y for P = x' y' (' a transpose or adjoint when
// tx / ty), TensorFlow's four cases; mm(p, q, tp, tq) builds p' q'.
template <typename MatMulFn>
void ProductGrads(const MatMulFn& mm, TF_Output x, TF_Output y, TF_Output g,
                  bool tx, bool ty, TF_Output* gx, TF_Output* gy) {
  if (!tx && !ty) {
    *gx = mm(g, y, false, true);
    *gy = mm(x, g, true, false);
  } else if (!tx && ty) {
    *gx = mm(g, y, false, false);
    *gy = mm(g, x, true, false);
  } else if (tx && !ty) {
    *gx = mm(y, g, false, true);
    *gy = mm(x, g, false, false);
  } else {
    *gx = mm(y, g, true, true);
    *gy = mm(g, x, true, true);
  }
}

void MatMulGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
                Outputs* dx) {
  auto mm = [&b](TF_Output p, TF_Output q, bool tp, bool tq) {
    return b.Op("MatMul", {p, q}, [tp, tq](TF_OperationDescription* d) {
      TF_SetAttrBool(d, "transpose_a", tp);
      TF_SetAttrBool(d, "transpose_b", tq);
    });
  };
  dx->assign(2, NoGradient());
  ProductGrads(mm, OpInput(op, 0), OpInput(op, 1), dy[0],
               BoolAttr(op, "transpose_a"), BoolAttr(op, "transpose_b"),
               &(*dx)[0], &(*dx)[1]);
}

void BatchMatMulGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
                     Outputs* dx) {
  TF_Output x = OpInput(op, 0), y = OpInput(op, 1);
  auto mm = [&b](TF_Output p, TF_Output q, bool adj_p, bool adj_q) {
    return b.Op("BatchMatMulV2", {p, q},
                [adj_p, adj_q](TF_OperationDescription* d) {
                  TF_SetAttrBool(d, "adj_x", adj_p);
                  TF_SetAttrBool(d, "adj_y", adj_q);
                });
  };
  TF_Output gx, gy;
  ProductGrads(mm, x, y, dy[0], BoolAttr(op, "adj_x"), BoolAttr(op, "adj_y"),
               &gx, &gy);
  // Batch dimensions (all but the last two) may broadcast: sum the
  // gradients over the ones an input was broadcast along.
  TF_Output sx = b.Shape(x), sy = b.Shape(y);
  auto batch = [&b](TF_Output shape) {
    return b.Op("StridedSlice",
                {shape, b.ConstInt32({0}, false), b.ConstInt32({-2}, false),
                 b.ConstInt32({1}, false)});
  };
  TF_Operation* args =
      b.AddOp("BroadcastGradientArgs", {{batch(sx)}, {batch(sy)}});
  dx->assign(2, NoGradient());
  if (args == nullptr) return;
  (*dx)[0] = b.Reshape(b.Sum(gx, TF_Output{args, 0}, false), sx);
  (*dx)[1] = b.Reshape(b.Sum(gy, TF_Output{args, 1}, false), sy);
}

void CastGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
              Outputs* dx) {
  auto differentiable = [](TF_DataType t) {
    return t == TF_FLOAT || t == TF_DOUBLE || t == TF_HALF ||
           t == TF_BFLOAT16 || t == TF_COMPLEX64 || t == TF_COMPLEX128;
  };
  TF_DataType src = TypeAttr(op, "SrcT");
  TF_DataType dst = TypeAttr(op, "DstT");
  if (differentiable(src) && differentiable(dst)) {
    *dx = {b.Cast(dy[0], src)};
  } else {
    *dx = {NoGradient()};
  }
}

void SelectGrad(GradBuilder& b, TF_Operation* op, const Outputs& dy,
                Outputs* dx) {
  TF_Output c = OpInput(op, 0);
  TF_Output zeros = b.ZerosLike(dy[0]);
  TF_Output gx = b.Op("SelectV2", {c, dy[0], zeros});
  TF_Output gy = b.Op("SelectV2", {c, zeros, dy[0]});
  dx->assign(3, NoGradient());
  b.ReduceBroadcast(OpInput(op, 1), OpInput(op, 2), gx, gy, &(*dx)[1],
                    &(*dx)[2]);
}

REGISTER_GRADIENT("Identity", IdentityGrad);
REGISTER_GRADIENT("Snapshot", IdentityGrad);
REGISTER_GRADIENT("Neg", NegGrad);
REGISTER_GRADIENT("Abs", AbsGrad);
REGISTER_GRADIENT("Square", SquareGrad);
REGISTER_GRADIENT("Sqrt", OutputGradOp<kSqrtGrad>);
REGISTER_GRADIENT("Rsqrt", OutputGradOp<kRsqrtGrad>);
REGISTER_GRADIENT("Tanh", OutputGradOp<kTanhGrad>);
REGISTER_GRADIENT("Sigmoid", OutputGradOp<kSigmoidGrad>);
REGISTER_GRADIENT("Reciprocal", OutputGradOp<kReciprocalGrad>);
REGISTER_GRADIENT("Inv", OutputGradOp<kReciprocalGrad>);
REGISTER_GRADIENT("Exp", ExpGrad);
REGISTER_GRADIENT("Log", LogGrad);
REGISTER_GRADIENT("Log1p", Log1pGrad);
REGISTER_GRADIENT("Sin", SinGrad);
REGISTER_GRADIENT("Cos", CosGrad);
REGISTER_GRADIENT("Add", AddGrad);
REGISTER_GRADIENT("AddV2", AddGrad);
REGISTER_GRADIENT("Sub", SubGrad);
REGISTER_GRADIENT("Mul", MulGrad);
REGISTER_GRADIENT("Div", DivGrad);
REGISTER_GRADIENT("RealDiv", DivGrad);
REGISTER_GRADIENT("SquaredDifference", SquaredDifferenceGrad);
REGISTER_GRADIENT("Maximum", MaxMinGrad<kGreaterEqual>);
REGISTER_GRADIENT("Minimum", MaxMinGrad<kLessEqual>);
REGISTER_GRADIENT("Pow", PowGrad);
REGISTER_GRADIENT("AddN", AddNGrad);
REGISTER_GRADIENT("Sum", SumGrad);
REGISTER_GRADIENT("Mean", MeanGrad);
REGISTER_GRADIENT("Max", MaxMinReductionGrad);
REGISTER_GRADIENT("Min", MaxMinReductionGrad);
REGISTER_GRADIENT("MatMul", MatMulGrad);
REGISTER_GRADIENT("BatchMatMul", BatchMatMulGrad);
REGISTER_GRADIENT("BatchMatMulV2", BatchMatMulGrad);
REGISTER_GRADIENT("Cast", CastGrad);
REGISTER_GRADIENT("Select", SelectGrad);
REGISTER_GRADIENT("SelectV2", SelectGrad);

// Piecewise-constant or non-numeric results: no gradient flows.
REGISTER_NO_GRADIENT("Floor");
REGISTER_NO_GRADIENT("Ceil");
REGISTER_NO_GRADIENT("Round");
REGISTER_NO_GRADIENT("Rint");
REGISTER_NO_GRADIENT("Sign");
REGISTER_NO_GRADIENT("FloorDiv");
REGISTER_NO_GRADIENT("FloorMod");
REGISTER_NO_GRADIENT("TruncateDiv");
REGISTER_NO_GRADIENT("Equal");
REGISTER_NO_GRADIENT("NotEqual");
REGISTER_NO_GRADIENT("Less");
REGISTER_NO_GRADIENT("LessEqual");
REGISTER_NO_GRADIENT("Greater");
REGISTER_NO_GRADIENT("GreaterEqual");
REGISTER_NO_GRADIENT("LogicalAnd");
REGISTER_NO_GRADIENT("LogicalOr");
REGISTER_NO_GRADIENT("LogicalNot");
REGISTER_NO_GRADIENT("ArgMax");
REGISTER_NO_GRADIENT("ArgMin");
REGISTER_NO_GRADIENT("Range");
REGISTER_NO_GRADIENT("StopGradient");

}  // namespace
}  // namespace c_api
}  // namespace stepflow
