#include "exec/process_group.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>

TEST_CASE("the test process is alive; a pid that does not exist is not") {
  CHECK(kopt::exec::processAlive(::getpid()));
  CHECK_FALSE(kopt::exec::processAlive(0x3ffffff));
}

TEST_CASE("a group with no members is empty and has no CPU time") {
  auto snap = kopt::exec::snapshotGroup(0x3ffffff);
  CHECK(snap.members.empty());
  CHECK(snap.cpuTicks == 0);
  CHECK(kopt::exec::groupEmpty(0x3ffffff));
}

TEST_CASE("the test's own process group contains the test") {
  auto snap = kopt::exec::snapshotGroup(::getpgrp());
  CHECK(std::find(snap.members.begin(), snap.members.end(), ::getpid()) != snap.members.end());
}
