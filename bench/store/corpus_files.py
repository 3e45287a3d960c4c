"""The two files every corpus generator of `make bench-store` writes, one metric family each: PREFIX.om
(OpenMetrics, second timestamps, ending in # EOF) and PREFIX.prom (Prometheus text, millisecond timestamps),
the same samples in both."""


class CorpusFiles:
    def __init__(self, prefix, metric, help_text, kind="gauge"):
        self.prefix, self.metric, self.help_text, self.kind = prefix, metric, help_text, kind

    def __enter__(self):
        self.om = open(self.prefix + ".om", "w")
        self.prom = open(self.prefix + ".prom", "w")
        for f in (self.om, self.prom):
            f.write("# HELP %s %s\n" % (self.metric, self.help_text))
            f.write("# TYPE %s %s\n" % (self.metric, self.kind))
        return self

    def write_series(self, labels, samples):
        """labels: the series' '{name="value",...}'; samples: (unix seconds, value text) pairs. Returns how many
        samples were written."""
        series = self.metric + labels
        om_lines = ["%s %s %d\n" % (series, value, t) for t, value in samples]
        prom_lines = ["%s %s %d000\n" % (series, value, t) for t, value in samples]
        self.om.writelines(om_lines)
        self.prom.writelines(prom_lines)
        return len(om_lines)

    def __exit__(self, *exc):
        self.om.write("# EOF\n")
        self.om.close()
        self.prom.close()
        return False
