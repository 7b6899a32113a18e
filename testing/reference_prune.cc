#include "testing/reference_prune.h"

#include <cstdlib>
#include <deque>
#include <map>
#include <utility>

namespace stepflow::graph_testing {
namespace {

// (node, output index); index -1 marks a control input.
using Port = std::pair<std::string, int>;

// Splits an input or endpoint spelling. Only the forms the generators and
// tests use are needed: "^x", "x", "x:<digits>".
Port SplitEndpoint(const std::string& s) {
  if (!s.empty() && s[0] == '^') return {s.substr(1), -1};
  const size_t colon = s.find_last_of(':');
  if (colon == std::string::npos || colon + 1 == s.size()) return {s, 0};
  for (size_t k = colon + 1; k < s.size(); ++k) {
    if (s[k] < '0' || s[k] > '9') return {s, 0};
  }
  return {s.substr(0, colon), std::atoi(s.c_str() + colon + 1)};
}

std::string Join(const std::string& a, int b) {
  return a + "_" + std::to_string(b);
}

}  // namespace

std::set<std::string> ReferencePrunedNodeNames(
    const GraphDef& graph, const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, bool use_function_convention) {
  std::map<std::string, const NodeDef*> by_name;
  for (const NodeDef& n : graph.node()) by_name[n.name()] = &n;

  // Fed endpoint -> name of the node that replaces it.
  std::map<Port, std::string> feed_node;
  for (size_t k = 0; k < feeds.size(); ++k) {
    const Port p = SplitEndpoint(feeds[k]);
    feed_node[p] =
        use_function_convention
            ? "_arg_" + Join(Join(p.first, p.second), static_cast<int>(k))
            : "_recv_" + Join(p.first, p.second);
  }

  std::set<std::string> kept;
  std::deque<std::string> work;
  for (size_t k = 0; k < fetches.size(); ++k) {
    const Port p = SplitEndpoint(fetches[k]);
    kept.insert(use_function_convention
                    ? "_retval_" +
                          Join(Join(p.first, p.second), static_cast<int>(k))
                    : "_send_" + Join(p.first, p.second));
    work.push_back(p.first);
  }
  for (const std::string& t : targets) work.push_back(t);

  while (!work.empty()) {
    const std::string name = work.front();
    work.pop_front();
    if (!kept.insert(name).second) continue;
    auto it = by_name.find(name);
    if (it == by_name.end()) continue;
    for (const std::string& input : it->second->input()) {
      Port p = SplitEndpoint(input);
      if (p.second == -1) {
        // Control successors of a fed Placeholder wait on its feed instead.
        auto src = by_name.find(p.first);
        const bool fed_placeholder = src != by_name.end() &&
                                     src->second->op() == "Placeholder" &&
                                     feed_node.count({p.first, 0}) > 0;
        if (fed_placeholder) {
          kept.insert(feed_node[{p.first, 0}]);
        } else {
          work.push_back(p.first);
        }
        continue;
      }
      auto fed = feed_node.find(p);
      if (fed != feed_node.end()) {
        kept.insert(fed->second);
      } else {
        work.push_back(p.first);
      }
    }
  }
  return kept;
}

}  // namespace stepflow::graph_testing
