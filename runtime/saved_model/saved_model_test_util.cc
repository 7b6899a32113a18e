#include "runtime/saved_model/saved_model_test_util.h"

#include <sys/stat.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/text_format.h"
#include "proto/saved_model.pb.h"
#include "runtime/common/session.h"
#include "runtime/env/real/real_env.h"
#include "runtime/graph/graph_def_io.h"

namespace stepflow {
namespace test {
namespace {

constexpr char kGraph[] = R"pb(
  node {
    name: 'x'
    op: 'Placeholder'
    attr {
      key: 'dtype'
      value { type: DT_FLOAT }
    }
  }
  node {
    name: 'w'
    op: 'VariableV2'
    attr {
      key: 'dtype'
      value { type: DT_FLOAT }
    }
    attr {
      key: 'shape'
      value { shape { dim { size: 2 } } }
    }
  }
  node {
    name: 'w/value'
    op: 'Placeholder'
    attr {
      key: 'dtype'
      value { type: DT_FLOAT }
    }
  }
  node {
    name: 'w/set'
    op: 'Assign'
    input: 'w'
    input: 'w/value'
    attr {
      key: 'T'
      value { type: DT_FLOAT }
    }
  }
  node {
    name: 'y'
    op: 'Add'
    input: 'x'
    input: 'w'
    attr {
      key: 'T'
      value { type: DT_FLOAT }
    }
  }
  node {
    name: 'local'
    op: 'VariableV2'
    attr {
      key: 'dtype'
      value { type: DT_FLOAT }
    }
    attr {
      key: 'shape'
      value { shape {} }
    }
  }
  node {
    name: 'local/initial_value'
    op: 'Const'
    attr {
      key: 'dtype'
      value { type: DT_FLOAT }
    }
    attr {
      key: 'value'
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape {}
          float_val: 5
        }
      }
    }
  }
  node {
    name: 'local/init'
    op: 'Assign'
    input: 'local'
    input: 'local/initial_value'
    attr {
      key: 'T'
      value { type: DT_FLOAT }
    }
  }
  node {
    name: 'local/read'
    op: 'Identity'
    input: 'local'
    attr {
      key: 'T'
      value { type: DT_FLOAT }
    }
  }
  node {
    name: 'asset_path'
    op: 'Placeholder'
    attr {
      key: 'dtype'
      value { type: DT_STRING }
    }
  }
  node {
    name: 'asset_var'
    op: 'VariableV2'
    attr {
      key: 'dtype'
      value { type: DT_STRING }
    }
    attr {
      key: 'shape'
      value { shape {} }
    }
  }
  node {
    name: 'asset_var/init'
    op: 'Assign'
    input: 'asset_var'
    input: 'asset_path'
    attr {
      key: 'T'
      value { type: DT_STRING }
    }
  }
  node {
    name: 'asset_var/read'
    op: 'Identity'
    input: 'asset_var'
    attr {
      key: 'T'
      value { type: DT_STRING }
    }
  }
  node {
    name: 'init_all'
    op: 'NoOp'
    input: '^local/init'
    input: '^asset_var/init'
  }
  node {
    name: 'save/Const'
    op: 'Const'
    attr {
      key: 'dtype'
      value { type: DT_STRING }
    }
    attr {
      key: 'value'
      value {
        tensor {
          dtype: DT_STRING
          tensor_shape {}
          string_val: 'model'
        }
      }
    }
  }
  node {
    name: 'save/names'
    op: 'Const'
    attr {
      key: 'dtype'
      value { type: DT_STRING }
    }
    attr {
      key: 'value'
      value {
        tensor {
          dtype: DT_STRING
          tensor_shape { dim { size: 1 } }
          string_val: 'w'
        }
      }
    }
  }
  node {
    name: 'save/slices'
    op: 'Const'
    attr {
      key: 'dtype'
      value { type: DT_STRING }
    }
    attr {
      key: 'value'
      value {
        tensor {
          dtype: DT_STRING
          tensor_shape { dim { size: 1 } }
          string_val: ''
        }
      }
    }
  }
  node {
    name: 'save/SaveV2'
    op: 'SaveV2'
    input: 'save/Const'
    input: 'save/names'
    input: 'save/slices'
    input: 'w'
    attr {
      key: 'dtypes'
      value { list { type: DT_FLOAT } }
    }
  }
  node {
    name: 'save/RestoreV2'
    op: 'RestoreV2'
    input: 'save/Const'
    input: 'save/names'
    input: 'save/slices'
    attr {
      key: 'dtypes'
      value { list { type: DT_FLOAT } }
    }
  }
  node {
    name: 'save/Assign'
    op: 'Assign'
    input: 'w'
    input: 'save/RestoreV2'
    attr {
      key: 'T'
      value { type: DT_FLOAT }
    }
  }
  node { name: 'save/restore_all' op: 'NoOp' input: '^save/Assign' }
)pb";

TensorInfo Dense(const std::string& name, DataType dtype) {
  TensorInfo info;
  info.set_name(name);
  info.set_dtype(dtype);
  info.mutable_tensor_shape()->set_unknown_rank(true);
  return info;
}

absl::Status WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << bytes;
  f.close();
  if (!f) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

// Saves w = [10, 20] to <export_dir>/variables/variables.
absl::Status WriteVariables(const std::string& export_dir,
                            const GraphDef& graph) {
  const std::string dir = absl::StrCat(export_dir, "/variables");
  mkdir(dir.c_str(), 0755);
  std::unique_ptr<RealEnv> env = RealEnv::Create(1);
  SessionOptions options;
  options.env = env->env();
  std::unique_ptr<Session> session;
  absl::Status s = NewSession(options, &session);
  if (s.ok()) s = session->Create(graph);
  Tensor w(DT_FLOAT, TensorShape({2}));
  w.flat<float>()(0) = 10;
  w.flat<float>()(1) = 20;
  std::vector<Tensor> out;
  if (s.ok()) s = session->Run({{"w/value", w}}, {}, {"w/set"}, &out);
  if (s.ok()) {
    s = session->Run({{"save/Const:0", Tensor::Scalar<std::string>(
                                           absl::StrCat(dir, "/variables"))}},
                     {}, {"save/SaveV2"}, &out);
  }
  if (session != nullptr) session->Close().IgnoreError();
  return s;
}

}  // namespace

MetaGraphDef TestMetaGraphDef(const TestSavedModelOptions& options) {
  MetaGraphDef meta;
  meta.mutable_meta_info_def()->add_tags("serve");
  ParseGraphDefFromText(kGraph, meta.mutable_graph_def()).IgnoreError();
  SaverDef* saver = meta.mutable_saver_def();
  saver->set_filename_tensor_name("save/Const:0");
  saver->set_save_tensor_name("save/SaveV2");
  saver->set_restore_op_name("save/restore_all");
  saver->set_version(SaverDef::V2);
  SignatureDef& sig = (*meta.mutable_signature_def())["serving_default"];
  sig.set_method_name("tensorflow/serving/predict");
  (*sig.mutable_inputs())["x"] = Dense("x:0", DT_FLOAT);
  (*sig.mutable_outputs())["y"] = Dense("y:0", DT_FLOAT);
  (*sig.mutable_outputs())["local"] = Dense("local/read:0", DT_FLOAT);
  (*sig.mutable_outputs())["asset"] = Dense("asset_var/read:0", DT_STRING);
  AssetFileDef asset;
  *asset.mutable_tensor_info() = Dense("asset_path:0", DT_STRING);
  asset.set_filename("vocab.txt");
  if (options.assets_in_collection) {
    google::protobuf::Any* any =
        (*meta.mutable_collection_def())["saved_model_assets"]
            .mutable_any_list()
            ->add_value();
    any->set_type_url("type.googleapis.com/tensorflow.AssetFileDef");
    any->set_value(asset.SerializeAsString());
  } else {
    *meta.add_asset_file_def() = asset;
  }
  using InitOp = TestSavedModelOptions::InitOp;
  switch (options.init_op) {
    case InitOp::kNone:
      break;
    case InitOp::kLegacyInitOpCollection:
    case InitOp::kMainOpCollection:
      (*meta.mutable_collection_def())[options.init_op ==
                                               InitOp::kMainOpCollection
                                           ? "saved_model_main_op"
                                           : "legacy_init_op"]
          .mutable_node_list()
          ->add_value("init_all");
      break;
    case InitOp::kSignature: {
      SignatureDef& init =
          (*meta.mutable_signature_def())["__saved_model_init_op"];
      (*init.mutable_outputs())["__saved_model_init_op"] =
          Dense("init_all", DT_INVALID);
      break;
    }
  }
  return meta;
}

absl::Status WriteTestSavedModel(const std::string& export_dir,
                                 const TestSavedModelOptions& options) {
  mkdir(export_dir.c_str(), 0755);
  SavedModel saved_model;
  saved_model.set_saved_model_schema_version(1);
  const MetaGraphDef meta = TestMetaGraphDef(options);
  for (const auto& tags : options.tag_sets) {
    MetaGraphDef* m = saved_model.add_meta_graphs();
    *m = meta;
    m->mutable_meta_info_def()->clear_tags();
    for (const std::string& tag : tags)
      m->mutable_meta_info_def()->add_tags(tag);
    m->mutable_meta_info_def()->set_meta_graph_version(
        absl::StrJoin(tags, ","));
  }
  if (options.with_variables) {
    absl::Status s = WriteVariables(export_dir, meta.graph_def());
    if (!s.ok()) return s;
  }
  const std::string assets = absl::StrCat(export_dir, "/assets");
  mkdir(assets.c_str(), 0755);
  absl::Status s = WriteFile(absl::StrCat(assets, "/vocab.txt"), "a\nb\n");
  if (!s.ok()) return s;
  if (options.text) {
    std::string text;
    google::protobuf::TextFormat::PrintToString(saved_model, &text);
    return WriteFile(absl::StrCat(export_dir, "/saved_model.pbtxt"), text);
  }
  return WriteFile(absl::StrCat(export_dir, "/saved_model.pb"),
                   saved_model.SerializeAsString());
}

}  // namespace test
}  // namespace stepflow
