#include "mapr/catalog.h"

#include <string>
#include <vector>

#include "parser/function_catalog.h"
#include "runtime/aggregate.h"

namespace mapr {

std::vector<CatalogEntry> AggregateCatalog() {
  std::vector<CatalogEntry> out;
  for (const runtime::AggregateFunction* a : runtime::Aggregates()) {
    const std::string name(a->info.name);
    out.push_back({name, name + "(x)", std::string(a->info.summary)});
  }
  return out;
}

std::vector<CatalogEntry> FunctionCatalog() {
  std::vector<CatalogEntry> out;
  for (const plan::FunctionInfo& f : plan::Functions()) {
    out.push_back(
        {std::string(f.name), std::string(f.usage), std::string(f.summary)});
  }
  return out;
}

}  // namespace mapr
