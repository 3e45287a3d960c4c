// Kernel-log records as drivers write them, parsed into events with their device, XID, pid and process.
#include <gtest/gtest.h>

#include "core/utf8.h"
#include "sources/kernel_log/kmsg_parser.h"

namespace gpuwatch::kernel {
namespace {

TEST(KmsgParser, XidWithPidAndProcessName) {
  auto ev = parse_kernel_record(
      "4,1610,99001200000,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the "
      "bus.");
  ASSERT_TRUE(ev);
  EXPECT_EQ(ev->kind, KernelEventKind::kXid);
  EXPECT_EQ(ev->sequence, 1610U);
  EXPECT_EQ(ev->boot_usec, 99001200000);
  EXPECT_EQ(ev->pci_bus_id, "0000:3b:00.0");
  EXPECT_EQ(ev->xid, 79U);
  EXPECT_EQ(ev->pid, 1234U);
  EXPECT_EQ(ev->process, "python3");
}

// Any local user can name a process with any bytes, and the driver quotes the name as it is.
TEST(KmsgParser, InvalidBytesInTheRecordBecomeValidText) {
  auto ev = parse_kernel_record(
      "4,1611,99001300000,-;NVRM: Xid (PCI:0000:3b:00): 13, pid=77, name=py\xff\xfethon, Graphics Exception "
      "\xc3");
  ASSERT_TRUE(ev);
  EXPECT_EQ(ev->xid, 13U);
  EXPECT_EQ(ev->pid, 77U);
  EXPECT_EQ(ev->process, "py\xEF\xBF\xBD\xEF\xBF\xBDthon");
  EXPECT_TRUE(is_valid_utf8(ev->message)) << ev->message;
  EXPECT_TRUE(ev->message.ends_with("Graphics Exception \xEF\xBF\xBD")) << ev->message;
}

TEST(KmsgParser, XidWithUnknownProcessAndOlderDriverFormat) {
  auto unknown = parse_kernel_record(
      "NVRM: Xid (PCI:0000:86:00): 79, pid='<unknown>', name=<unknown>, GPU has "
      "fallen off the bus.");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->xid, 79U);
  EXPECT_FALSE(unknown->pid.has_value());
  EXPECT_EQ(unknown->process, "");
  EXPECT_EQ(unknown->sequence, 0U);

  auto old = parse_kernel_record(
      "[  912.334512] NVRM: Xid (PCI:0000:af:00): 31, Ch 00000010, intr 10000000. MMU Fault");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->xid, 31U);
  EXPECT_EQ(old->boot_usec, 912334512);
  EXPECT_EQ(old->pci_bus_id, "0000:af:00.0");
  EXPECT_FALSE(old->pid.has_value());
}

TEST(KmsgParser, FallenOffTheBusAerAndDriverLoad) {
  auto off = parse_kernel_record("4,1611,99001200040,-;NVRM: GPU 0000:86:00.0: GPU has fallen off the bus.");
  ASSERT_TRUE(off);
  EXPECT_EQ(off->kind, KernelEventKind::kFallenOffBus);
  EXPECT_EQ(off->pci_bus_id, "0000:86:00.0");

  auto cor = parse_kernel_record(
      "3,1502,93120044810,-;pcieport 0000:00:01.0: AER: Corrected error received: 0000:5e:00.0");
  ASSERT_TRUE(cor);
  EXPECT_EQ(cor->kind, KernelEventKind::kAerCorrected);
  EXPECT_EQ(cor->pci_bus_id, "0000:5e:00.0") << "the device in error, not the port that reported it";

  auto bus_error = parse_kernel_record(
      "3,1503,93120044901,-;nvidia 0000:5e:00.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal), "
      "type=Transaction Layer");
  ASSERT_TRUE(bus_error);
  EXPECT_EQ(bus_error->kind, KernelEventKind::kAerUncorrected);
  EXPECT_EQ(bus_error->pci_bus_id, "0000:5e:00.0");

  auto fatal =
      parse_kernel_record("pcieport 0000:80:03.0: AER: Uncorrected (Fatal) error received: 0000:86:00.0");
  ASSERT_TRUE(fatal);
  EXPECT_EQ(fatal->kind, KernelEventKind::kAerUncorrected);

  auto load = parse_kernel_record(
      "6,1021,4820112,-;NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC "
      "2024");
  ASSERT_TRUE(load);
  EXPECT_EQ(load->kind, KernelEventKind::kDriverLoaded);
  EXPECT_EQ(load->driver_version, "550.54.15");

  auto unload =
      parse_kernel_record("6,2000,123,-;nvidia-nvlink: Unregistered Nvlink Core, major device number 234");
  ASSERT_TRUE(unload);
  EXPECT_EQ(unload->kind, KernelEventKind::kDriverUnloaded);
}

TEST(KmsgParser, OtherRecordsAndContinuationLinesAreNotEvents) {
  EXPECT_FALSE(parse_kernel_record("6,1700,99500000000,-;systemd[1]: Started Session 42 of User root."));
  EXPECT_FALSE(parse_kernel_record(" SUBSYSTEM=pci"));
  EXPECT_FALSE(parse_kernel_record(""));
  EXPECT_FALSE(
      parse_kernel_record("6,1022,4821007,-;nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver"));
}

TEST(KmsgParser, BusIdsAreNormalised) {
  EXPECT_EQ(normalise_pci_bus_id("0000:3b:00"), "0000:3b:00.0");
  EXPECT_EQ(normalise_pci_bus_id("00000000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(normalise_pci_bus_id("3b:00.1"), "0000:3b:00.1");
  EXPECT_EQ(normalise_pci_bus_id("not-a-bus"), "");
  EXPECT_EQ(normalise_pci_bus_id("0000:3b:00:00"), "") << "too many parts";
}

}  // namespace
}  // namespace gpuwatch::kernel
