#include "request_mix.hpp"
#include "workload.hpp"

namespace alloclab::lab {
namespace {

LAB_REGISTER_WORKLOAD(request_mix);

}  // namespace
}  // namespace alloclab::lab
