// alloclab/alloclab.hpp: every public alloclab component in one include.
#pragma once

#include "allocator.hpp"
#include "allocator_resource.hpp"
#include "arena_resource.hpp"
#include "build_info.hpp"
#include "checked_resource.hpp"
#include "concurrent_multipool_resource.hpp"
#include "exception_test.hpp"
#include "limit_resource.hpp"
#include "multipool_resource.hpp"
#include "pool_resource.hpp"
#include "scratch_stack.hpp"
#include "segregator_resource.hpp"
#include "synchronized_resource.hpp"
#include "tracking_resource.hpp"
#include "unique_ptr.hpp"
