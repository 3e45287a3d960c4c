#!/usr/bin/env python3
"""Compares `gpuwatch status --json` with `nvidia-smi --query-gpu ... --format=csv,nounits`, field by field.

Usage: compare.py STATUS_JSON NVIDIA_SMI_CSV  -> a Markdown table on stdout, one row per GPU and field.
Values read at slightly different moments differ for fast-moving fields (power, utilization, clocks); the
tolerance column says what counts as agreement.
"""
import csv
import json
import sys

# nvidia-smi field -> (how to get gpuwatch's value from a device of the JSON, tolerance, unit conversion)
def metric(device, name, **labels):
    for sample in device.get("metrics", {}).get(name, []):
        if all(sample.get("labels", {}).get(k) == v for k, v in labels.items()):
            return sample.get("value")
    return None

MiB = 1024 * 1024
FIELDS = {
    "uuid": (lambda d: d["uuid"], "exact"),
    "name": (lambda d: d["name"], "exact"),
    "serial": (lambda d: d.get("serial"), "exact"),
    "pci.bus_id": (lambda d: d.get("pci_bus_id"), "bus id"),
    "vbios_version": (lambda d: d.get("vbios_version"), "exact"),
    "memory.total [MiB]": (lambda d: metric(d, "gpu_memory_total_bytes") and metric(d, "gpu_memory_total_bytes") / MiB, 1.0),
    "memory.used [MiB]": (lambda d: metric(d, "gpu_memory_used_bytes") and metric(d, "gpu_memory_used_bytes") / MiB, 64.0),
    "temperature.gpu": (lambda d: metric(d, "gpu_temperature_celsius"), 2.0),
    "power.limit [W]": (lambda d: metric(d, "gpu_power_limit_watts"), 1.0),
    "power.draw [W]": (lambda d: metric(d, "gpu_power_watts"), 25.0),
    "clocks.max.sm [MHz]": (lambda d: metric(d, "gpu_clock_max_hertz", clock="sm") and metric(d, "gpu_clock_max_hertz", clock="sm") / 1e6, 0.5),
    "clocks.max.memory [MHz]": (lambda d: metric(d, "gpu_clock_max_hertz", clock="memory") and metric(d, "gpu_clock_max_hertz", clock="memory") / 1e6, 0.5),
    "pcie.link.gen.max": (lambda d: metric(d, "gpu_pcie_link_max_generation"), 0.0),
    "pcie.link.width.max": (lambda d: metric(d, "gpu_pcie_link_max_width"), 0.0),
    "pcie.link.width.current": (lambda d: metric(d, "gpu_pcie_link_width"), 0.0),
    "ecc.errors.uncorrected.volatile.total": (lambda d: metric(d, "gpu_ecc_errors_total", type="uncorrected", counter="volatile"), 0.0),
}


def norm_bus(s):
    s = (s or "").lower()
    return s[4:] if len(s) == 16 else s  # 00000000:3b:00.0 -> 0000:3b:00.0


def main():
    status = json.load(open(sys.argv[1]))
    rows = list(csv.DictReader(open(sys.argv[2]), skipinitialspace=True))
    devices = {d.get("uuid"): d for d in status.get("devices", [])}
    print("| GPU | field | nvidia-smi | gpuwatch | agree |\n| --- | --- | --- | --- | --- |")
    bad = 0
    for row in rows:
        uuid = row.get("uuid")
        device = devices.get(uuid)
        if device is None:
            print(f"| {row.get('index')} | uuid | {uuid} | missing | no |")
            bad += 1
            continue
        for field, (get, tol) in FIELDS.items():
            theirs = row.get(field)
            ours = get(device)
            if theirs is None:
                continue
            if tol == "exact":
                ok = str(ours) == theirs
            elif tol == "bus id":
                ok = norm_bus(ours) == norm_bus(theirs)
            else:
                try:
                    ok = ours is not None and abs(float(ours) - float(theirs)) <= tol
                except ValueError:
                    ok = ours is None  # nvidia-smi says [N/A] or [Not Supported]
            bad += 0 if ok else 1
            print(f"| {row.get('index')} | {field} | {theirs} | {ours} | {'yes' if ok else 'NO'} |")
    print(f"\n{bad} disagreement(s)")


if __name__ == "__main__":
    main()
