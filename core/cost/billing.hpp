// The one adapter from a run to the cost model's input: what was billed (capacity intervals) and what each job held,
// wrote and moved. Today every topology node is billed for the whole run at its site's price from the cost section;
// node pools (RunRecord::capacity) add their own intervals here.
#pragma once

#include "core/control/run_record.hpp"
#include "core/cost/cost_model.hpp"
#include "core/model/scenario.hpp"

namespace tt::cost {

// The site name of a node: Topology::sites()' name, or the topology's own name when it has one site.
std::string site_of_node(const Topology& topo, int node);

CostInput cost_input(const RunRecord& record, const Scenario& scenario);

}  // namespace tt::cost
