-- wrk reporter: writes one JSON object with the run's figures to the file named by WRK_JSON.
done = function(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local e = summary.errors
  local out = assert(io.open(os.getenv("WRK_JSON"), "w"))
  out:write(string.format(
    '{"requests": %d, "seconds": %.6f, "requests_per_second": %.3f, "bytes_read": %d, ' ..
    '"latency_p50_ms": %.4f, "latency_p99_ms": %.4f, "latency_max_ms": %.4f, ' ..
    '"errors": {"connect": %d, "read": %d, "write": %d, "status": %d, "timeout": %d}}\n',
    summary.requests, seconds, summary.requests / seconds, summary.bytes,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
    e.connect, e.read, e.write, e.status, e.timeout))
  out:close()
end
