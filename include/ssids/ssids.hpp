// ssids/ssids.hpp — the whole public C++ API of ssids.
#pragma once
#include "ssids/analyse.hpp"
#include "ssids/config.hpp"
#include "ssids/csc.hpp"
#include "ssids/error.hpp"
#include "ssids/factor.hpp"
#include "ssids/generate.hpp"
#include "ssids/inform.hpp"
#include "ssids/matrix_market.hpp"
#include "ssids/memory.hpp"
#include "ssids/options.hpp"
#include "ssids/refine.hpp"
#include "ssids/types.hpp"
