// SPDX-License-Identifier: GPL-2.0-or-later
// The machine's side of PELT load tracking (core/fair/loadavg.*).
#include "machine.h"

namespace schedlab {

void Machine::syncEntityLoadAvg(Task& task)
{
    m_load->syncEntityLoadAvg(task.se);
}

void Machine::updateLoadAvg(CfsRq& cfsRq, SchedEntity& se, bool updateTg)
{
    m_load->updateLoadAvg(cfsRq, se, updateTg);
}

} // namespace schedlab
