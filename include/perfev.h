/* SPDX-License-Identifier: MIT */
/*
 * perfev.h - everything libperfev offers, in one include.
 */
#ifndef PERFEV_H
#define PERFEV_H

#include "perfev/common.h"
#include "perfev/abi.h"
#include "perfev/error.h"
#include "perfev/cpulist.h"
#include "perfev/text.h"
#include "perfev/log.h"
#include "perfev/event.h"
#include "perfev/opts.h"
#include "perfev/machine.h"
#include "perfev/cgroup.h"
#include "perfev/counter.h"
#include "perfev/counter_list.h"
#include "perfev/ring.h"
#include "perfev/record.h"
#include "perfev/session.h"
#include "perfev/pmu.h"
#include "perfev/tracepoint.h"
#include "perfev/pfm.h"
#include "perfev/parse.h"
#include "perfev/selfmon.h"
#include "perfev/perfdata.h"
#include "perfev/symbols.h"
#include "perfev/signal.h"
#include "perfev/report.h"
#include "perfev/diff.h"
#include "perfev/replay.h"
#include "perfev/capability.h"

#endif /* PERFEV_H */
