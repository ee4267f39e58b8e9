// Internal to libppk: the discrete emissions of a pooled HMM as one table, for its adaptation
// (estimate_hmm.cpp) and its Fisher scores (fisher_hmm.cpp).
#pragma once

#include <string>

#include <Eigen/Core>

#include "ppk/families/hmm.hpp"

namespace ppk::detail {

// The M x O table E_qo of an HMM whose emissions are all one-event multinomials over O symbols
// (not leveled); EstimationError naming the first emission that is not, followed by `why`.
Eigen::MatrixXd one_event_emission_table(const HmmModel& hmm, const std::string& why);

}  // namespace ppk::detail
