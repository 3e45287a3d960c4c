#!/usr/bin/env python3
"""An NVML client in the manner of nvidia-ml-py's pynvml, as gpustat, nvitop and nvtop drive it.

It loads libnvidia-ml.so.1 by soname (LD_LIBRARY_PATH names the simulator's sim-lib/), makes the calls those
clients make at start and on every refresh, in their order, with their struct layouts and versions, and
exits non-zero naming every entry point that is missing or answers an error the real library would not.
The scenario comes from GPUWATCH_SIM_SCENARIO, as for every other simulator client.
"""
import ctypes
import os
import sys

SUCCESS, UNINITIALIZED, INVALID_ARGUMENT, NOT_SUPPORTED = 0, 1, 2, 3
NOT_FOUND, INSUFFICIENT_SIZE, ARGUMENT_VERSION_MISMATCH = 6, 7, 25
ERROR_NAMES = {0: "SUCCESS", 1: "UNINITIALIZED", 2: "INVALID_ARGUMENT", 3: "NOT_SUPPORTED", 6: "NOT_FOUND",
               7: "INSUFFICIENT_SIZE", 13: "FUNCTION_NOT_FOUND", 15: "GPU_IS_LOST", 25: "ARGUMENT_VERSION_MISMATCH",
               999: "UNKNOWN"}
MIB = 1024 * 1024
# What nvidia-smi prints as the total of each model's framebuffer, in MiB.
EXPECTED_TOTAL_MIB = {"NVIDIA H200": 143771, "NVIDIA H100 80GB HBM3": 81559, "NVIDIA A100-SXM4-80GB": 81920}

c_uint, c_int, c_ull, c_char_p = ctypes.c_uint, ctypes.c_int, ctypes.c_ulonglong, ctypes.c_char_p
byref = ctypes.byref


def version(struct, ver):  # NVML_STRUCT_VERSION
    return ctypes.sizeof(struct) | (ver << 24)


class Memory(ctypes.Structure):
    _fields_ = [("total", c_ull), ("free", c_ull), ("used", c_ull)]


class Memory_v2(ctypes.Structure):
    _fields_ = [("version", c_uint), ("total", c_ull), ("reserved", c_ull), ("free", c_ull), ("used", c_ull)]


class Bar1Memory(ctypes.Structure):
    _fields_ = [("bar1Total", c_ull), ("bar1Free", c_ull), ("bar1Used", c_ull)]


class Temperature_v1(ctypes.Structure):
    _fields_ = [("version", c_uint), ("sensorType", c_uint), ("temperature", c_int)]


class ConfComputeMemSizeInfo(ctypes.Structure):
    _fields_ = [("protectedMemSizeKib", c_ull), ("unprotectedMemSizeKib", c_ull)]


class Utilization(ctypes.Structure):
    _fields_ = [("gpu", c_uint), ("memory", c_uint)]


class PciInfo(ctypes.Structure):
    _fields_ = [("busIdLegacy", ctypes.c_char * 16), ("domain", c_uint), ("bus", c_uint), ("device", c_uint),
                ("pciDeviceId", c_uint), ("pciSubSystemId", c_uint), ("busId", ctypes.c_char * 32)]


class ProcessInfo(ctypes.Structure):  # the _v2/_v3 layout nvitop picks when the detail list is exported
    _fields_ = [("pid", c_uint), ("usedGpuMemory", c_ull), ("gpuInstanceId", c_uint), ("computeInstanceId", c_uint)]


class ProcessDetail_v1(ctypes.Structure):
    _fields_ = ProcessInfo._fields_ + [("usedGpuCcProtectedMemory", c_ull)]


class ProcessDetailList_v1(ctypes.Structure):
    _fields_ = [("version", c_uint), ("mode", c_uint), ("numProcArrayEntries", c_uint),
                ("procArray", ctypes.POINTER(ProcessDetail_v1))]


class ProcessUtilizationSample(ctypes.Structure):
    _fields_ = [("pid", c_uint), ("timeStamp", c_ull), ("smUtil", c_uint), ("memUtil", c_uint),
                ("encUtil", c_uint), ("decUtil", c_uint)]


class FieldValue(ctypes.Structure):
    _fields_ = [("fieldId", c_uint), ("scopeId", c_uint), ("timestamp", ctypes.c_longlong),
                ("latencyUsec", ctypes.c_longlong), ("valueType", c_int), ("nvmlReturn", c_int), ("value", c_ull)]


LAYOUTS = {Memory_v2: 40, Temperature_v1: 12, ConfComputeMemSizeInfo: 16, PciInfo: 68, ProcessInfo: 24,
           ProcessDetail_v1: 32, ProcessDetailList_v1: 24, ProcessUtilizationSample: 32, FieldValue: 40}


class Client:
    def __init__(self, lib):
        self.lib = lib
        self.failures = []
        self.mig_devices = 0

    def fail(self, text):
        self.failures.append(text)

    def call(self, name, *args, ok=(SUCCESS,)):
        """Calls `name` as pynvml does; returns its code, or None when the library does not export it."""
        try:
            fn = getattr(self.lib, name)
        except AttributeError:
            self.fail(f"{name}: not exported (a client gets FUNCTION_NOT_FOUND)")
            return None
        fn.restype = c_int
        r = fn(*args)
        if r not in ok:
            want = " or ".join(ERROR_NAMES.get(x, str(x)) for x in ok)
            self.fail(f"{name}: answered {ERROR_NAMES.get(r, r)} ({r}), expected {want}")
        return r

    def string(self, name, handle, size):
        buf = ctypes.create_string_buffer(size)
        args = (buf, c_uint(size)) if handle is None else (handle, buf, c_uint(size))
        return buf.value.decode() if self.call(name, *args) == SUCCESS else ""

    def uint(self, name, handle, *args, ok=(SUCCESS,)):
        v = c_uint(0)
        r = self.call(name, handle, *args, byref(v), ok=ok)
        return v.value if r == SUCCESS else None

    def processes(self, name, handle):
        """The INSUFFICIENT_SIZE dance pynvml does for the running-process lists."""
        count = c_uint(0)
        r = self.call(name, handle, byref(count), None, ok=(SUCCESS, INSUFFICIENT_SIZE))
        if r != INSUFFICIENT_SIZE:
            return []
        count.value = count.value * 2 + 5  # headroom for processes that start meanwhile
        procs = (ProcessInfo * count.value)()
        if self.call(name, handle, byref(count), procs) != SUCCESS:
            return []
        return procs[: count.value]

    def detail_list(self, handle, mode):
        lst = ProcessDetailList_v1(version=version(ProcessDetailList_v1, 1), mode=mode)
        name = "nvmlDeviceGetRunningProcessDetailList"
        r = self.call(name, handle, byref(lst), ok=(SUCCESS, INSUFFICIENT_SIZE))
        if r != INSUFFICIENT_SIZE:
            return None if r is None else []
        lst.numProcArrayEntries += 5
        procs = (ProcessDetail_v1 * lst.numProcArrayEntries)()
        lst.procArray = ctypes.cast(procs, ctypes.POINTER(ProcessDetail_v1))
        if self.call(name, handle, byref(lst)) != SUCCESS:
            return []
        return procs[: lst.numProcArrayEntries]


def check_memory(c, h, name, mig):
    mem = Memory()
    c.call("nvmlDeviceGetMemoryInfo", h, byref(mem))
    if mem.used + mem.free != mem.total:
        c.fail(f"nvmlDeviceGetMemoryInfo: used {mem.used} + free {mem.free} != total {mem.total}")
    mem2 = Memory_v2(version=version(Memory_v2, 2))
    if c.call("nvmlDeviceGetMemoryInfo_v2", h, byref(mem2)) == SUCCESS:
        if mem2.total != mem.total or mem2.reserved + mem2.used + mem2.free != mem2.total:
            c.fail(f"nvmlDeviceGetMemoryInfo_v2: total {mem2.total}, reserved {mem2.reserved}, used {mem2.used},"
                   f" free {mem2.free} disagree with each other or with v1's total {mem.total}")
    wrong = Memory_v2(version=2)  # nvtop's mistake: the bare number instead of NVML_STRUCT_VERSION
    c.call("nvmlDeviceGetMemoryInfo_v2", h, byref(wrong), ok=(ARGUMENT_VERSION_MISMATCH,))
    want = EXPECTED_TOTAL_MIB.get(name)
    if not mig and want is not None and mem.total != want * MIB:
        c.fail(f"nvmlDeviceGetMemoryInfo: {name} reports {mem.total} bytes ({mem.total / MIB:.0f} MiB),"
               f" a real one {want * MIB} ({want} MiB)")


def check_telemetry(c, h, mig, split):
    util = Utilization()  # NOT_SUPPORTED on a MIG instance and on a GPU split into them
    c.call("nvmlDeviceGetUtilizationRates", h, byref(util), ok=(NOT_SUPPORTED,) if mig or split else (SUCCESS,))
    if mig:  # the whole-GPU readings are NOT_SUPPORTED on a MIG device handle
        return
    classic = c.uint("nvmlDeviceGetTemperature", h, c_uint(0))
    temp = Temperature_v1(version=version(Temperature_v1, 1), sensorType=0)
    if c.call("nvmlDeviceGetTemperatureV", h, byref(temp)) == SUCCESS and classic is not None:
        if abs(temp.temperature - classic) > 1:
            c.fail(f"nvmlDeviceGetTemperatureV: {temp.temperature} C, nvmlDeviceGetTemperature {classic} C")
    stale = Temperature_v1(version=1, sensorType=0)
    c.call("nvmlDeviceGetTemperatureV", h, byref(stale), ok=(ARGUMENT_VERSION_MISMATCH,))
    c.uint("nvmlDeviceGetFanSpeed", h, ok=(SUCCESS, NOT_SUPPORTED))  # NOT_SUPPORTED on fanless SXM boards
    c.uint("nvmlDeviceGetPowerUsage", h)
    limit = c.uint("nvmlDeviceGetPowerManagementLimit", h)
    enforced = c.uint("nvmlDeviceGetEnforcedPowerLimit", h)
    if limit is not None and enforced is not None and enforced > limit:
        c.fail(f"nvmlDeviceGetEnforcedPowerLimit: {enforced} mW above the management limit {limit} mW")
    c.uint("nvmlDeviceGetPowerManagementDefaultLimit", h)
    c.call("nvmlDeviceGetPowerManagementLimit", h, None, ok=(INVALID_ARGUMENT,))
    c.uint("nvmlDeviceGetPerformanceState", h)
    for clock in range(4):  # graphics, SM, memory, video
        c.uint("nvmlDeviceGetClockInfo", h, c_uint(clock))
        c.uint("nvmlDeviceGetMaxClockInfo", h, c_uint(clock))
    for fn in ("nvmlDeviceGetEncoderUtilization", "nvmlDeviceGetDecoderUtilization"):
        util, period = c_uint(), c_uint()
        c.call(fn, h, byref(util), byref(period))
    for counter in range(2):  # TX, RX
        c.uint("nvmlDeviceGetPcieThroughput", h, c_uint(counter))
    c.uint("nvmlDeviceGetCurrPcieLinkGeneration", h)
    c.uint("nvmlDeviceGetCurrPcieLinkWidth", h)
    reasons = c_ull()
    c.call("nvmlDeviceGetCurrentClocksEventReasons", h, byref(reasons))
    ecc = c_ull()
    c.call("nvmlDeviceGetTotalEccErrors", h, c_uint(1), c_uint(0), byref(ecc))  # uncorrected, volatile
    fields = (FieldValue * 3)(FieldValue(fieldId=91), FieldValue(fieldId=138, scopeId=0xFFFFFFFF),
                              FieldValue(fieldId=139, scopeId=0xFFFFFFFF))  # NVLink count, data TX/RX
    c.call("nvmlDeviceGetFieldValues", h, c_int(3), fields)


def check_modes(c, h):
    """What nvitop's device panel shows: persistence, compute mode, display, the Windows driver model."""
    if c.uint("nvmlDeviceGetPersistenceMode", h) not in (None, 0, 1):
        c.fail("nvmlDeviceGetPersistenceMode: not an nvmlEnableState_t")
    if c.uint("nvmlDeviceGetComputeMode", h) not in (None, 0, 1, 2, 3):
        c.fail("nvmlDeviceGetComputeMode: not an nvmlComputeMode_t")
    c.uint("nvmlDeviceGetDisplayMode", h)
    c.uint("nvmlDeviceGetDisplayActive", h)
    c.call("nvmlDeviceGetPersistenceMode", h, None, ok=(INVALID_ARGUMENT,))
    current, pending = c_uint(), c_uint()
    c.call("nvmlDeviceGetDriverModel_v2", h, byref(current), byref(pending), ok=(NOT_SUPPORTED,))  # Windows only
    c.call("nvmlDeviceGetDriverModel", h, byref(current), byref(pending), ok=(NOT_SUPPORTED,))


def check_processes(c, h, mig, split):
    procs = c.processes("nvmlDeviceGetComputeRunningProcesses_v3", h)
    c.processes("nvmlDeviceGetGraphicsRunningProcesses_v3", h)
    c.processes("nvmlDeviceGetMPSComputeRunningProcesses_v3", h)
    details = c.detail_list(h, 0)
    if details is not None and sorted(p.pid for p in details) != sorted(p.pid for p in procs):
        c.fail("nvmlDeviceGetRunningProcessDetailList: other compute processes than nvmlDeviceGetComputeRunningProcesses_v3")
    if mig:
        return
    count = c_uint(0)
    r = c.call("nvmlDeviceGetProcessUtilization", h, None, byref(count), c_ull(0),
               ok=(NOT_SUPPORTED,) if split else (SUCCESS, INSUFFICIENT_SIZE, NOT_FOUND))
    if r == INSUFFICIENT_SIZE:
        samples = (ProcessUtilizationSample * count.value)()
        c.call("nvmlDeviceGetProcessUtilization", h, samples, byref(count), c_ull(0), ok=(SUCCESS, NOT_FOUND))


def check_identity(c, h, name, mig):
    uuid = c.string("nvmlDeviceGetUUID", h, 96)
    found = ctypes.c_void_p()
    if c.call("nvmlDeviceGetHandleByUUID", c_char_p(uuid.encode()), byref(found)) == SUCCESS:
        if c.string("nvmlDeviceGetUUID", found, 96) != uuid:
            c.fail(f"nvmlDeviceGetHandleByUUID({uuid}): a handle of another device")
    if mig:
        return
    c.uint("nvmlDeviceGetIndex", h)
    c.uint("nvmlDeviceGetMinorNumber", h)
    c.string("nvmlDeviceGetSerial", h, 30)
    major, minor = c_int(), c_int()
    if c.call("nvmlDeviceGetCudaComputeCapability", h, byref(major), byref(minor)) == SUCCESS:
        if not 7 <= major.value <= 12:
            c.fail(f"nvmlDeviceGetCudaComputeCapability: {major.value}.{minor.value} for {name}")
    pci = PciInfo()
    if c.call("nvmlDeviceGetPciInfo_v3", h, byref(pci)) == SUCCESS:
        for bus_id in (pci.busId, pci.busId[4:]):  # NVML's 8-digit domain and sysfs' 4-digit one
            if c.call("nvmlDeviceGetHandleByPciBusId_v2", c_char_p(bus_id), byref(found)) == SUCCESS:
                if c.string("nvmlDeviceGetUUID", found, 96) != uuid:
                    c.fail(f"nvmlDeviceGetHandleByPciBusId_v2({bus_id.decode()}): a handle of another GPU")
    bar1 = Bar1Memory()
    c.call("nvmlDeviceGetBAR1MemoryInfo", h, byref(bar1))
    cc = ConfComputeMemSizeInfo()
    c.call("nvmlDeviceGetConfComputeMemSizeInfo", h, byref(cc), ok=(SUCCESS, NOT_SUPPORTED))


def check_device(c, h, mig=False, split=False):
    name = c.string("nvmlDeviceGetName", h, 96)
    check_identity(c, h, name, mig)
    check_memory(c, h, name, mig)
    check_telemetry(c, h, mig, split)
    if not mig:
        check_modes(c, h)
    check_processes(c, h, mig, split)


def mig_enabled(c, h):
    current, pending = c_uint(), c_uint()
    r = c.call("nvmlDeviceGetMigMode", h, byref(current), byref(pending), ok=(SUCCESS, NOT_SUPPORTED))
    return r == SUCCESS and current.value == 1


def check_mig(c, h):
    slots = c.uint("nvmlDeviceGetMaxMigDeviceCount", h) or 0
    for i in range(slots):
        mig = ctypes.c_void_p()
        if c.call("nvmlDeviceGetMigDeviceHandleByIndex", h, c_uint(i), byref(mig), ok=(SUCCESS, NOT_FOUND)) == SUCCESS:
            check_device(c, mig, mig=True)
            c.mig_devices += 1


def main():
    for struct, size in LAYOUTS.items():
        assert ctypes.sizeof(struct) == size, f"{struct.__name__} is {ctypes.sizeof(struct)} bytes, not {size}"
    lib = ctypes.CDLL("libnvidia-ml.so.1")
    c = Client(lib)
    # nvitop reads the _v3 process lists with a 32-byte entry when the library has the confidential-computing
    # calls but not the detail list (some early R535 drivers): both or neither keeps it on the 24-byte layout.
    has = {n: hasattr(lib, n) for n in ("nvmlDeviceGetConfComputeMemSizeInfo", "nvmlDeviceGetRunningProcessDetailList")}
    if has["nvmlDeviceGetConfComputeMemSizeInfo"] and not has["nvmlDeviceGetRunningProcessDetailList"]:
        c.fail("nvmlDeviceGetRunningProcessDetailList: missing beside nvmlDeviceGetConfComputeMemSizeInfo")

    count = c_uint()
    c.call("nvmlDeviceGetCount_v2", byref(count), ok=(UNINITIALIZED,))
    if c.call("nvmlInitWithFlags", c_uint(0)) is None:  # pynvml's nvmlInit()
        c.call("nvmlInit_v2")  # keep going, to name everything else that is missing
    c.string("nvmlSystemGetDriverVersion", None, 80)
    c.string("nvmlSystemGetNVMLVersion", None, 80)
    cuda = c_int()
    c.call("nvmlSystemGetCudaDriverVersion", byref(cuda))
    c.call("nvmlDeviceGetCount_v2", byref(count))
    if count.value == 0:
        c.fail("nvmlDeviceGetCount_v2: no GPUs in the scenario")
    for i in range(count.value):
        h = ctypes.c_void_p()
        if c.call("nvmlDeviceGetHandleByIndex_v2", c_uint(i), byref(h)) == SUCCESS:
            split = mig_enabled(c, h)
            check_device(c, h, split=split)
            if split:
                check_mig(c, h)
    # A second init (NO_GPUS, as a tool that only wants the driver version does) nests like nvmlInit_v2's.
    if c.call("nvmlInitWithFlags", c_uint(1)) == SUCCESS:
        c.call("nvmlShutdown")
    # The first ABI's names, which nvtop and older bindings fall back to.
    if c.call("nvmlInit") == SUCCESS:
        old_count, first = c_uint(), ctypes.c_void_p()
        c.call("nvmlDeviceGetCount", byref(old_count))
        if old_count.value != count.value:
            c.fail(f"nvmlDeviceGetCount: {old_count.value} GPUs, nvmlDeviceGetCount_v2 {count.value}")
        c.call("nvmlDeviceGetHandleByIndex", c_uint(0), byref(first))
        c.call("nvmlShutdown")
    c.call("nvmlShutdown")
    c.call("nvmlDeviceGetCount_v2", byref(count), ok=(UNINITIALIZED,))

    for text in dict.fromkeys(c.failures):  # once each, in the order met
        times = c.failures.count(text)
        print(f"FAIL {text}" + (f" ({times} times)" if times > 1 else ""))
    scenario = os.path.basename(os.environ.get("GPUWATCH_SIM_SCENARIO", "(built-in scenario)"))
    print(f"{len(c.failures)} problems; {count.value} GPUs and {c.mig_devices} MIG devices of {scenario}")
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
