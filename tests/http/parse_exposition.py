#!/usr/bin/env python3
"""Parses a Prometheus text exposition with the official Python client's parser (Debian
python3-prometheus-client) and prints what it understood as JSON, for tests/http/metrics_test.cpp:
{"families": [{"name", "type", "documentation", "samples": [{"name", "labels", "value"}]}]}.
A non-finite value is written as the string Prometheus would ("+Inf", "-Inf", "NaN").
Exit 1 (and the parser's complaint on stderr) when the text does not parse."""
import json
import math
import sys

from prometheus_client.parser import text_string_to_metric_families


def finite_or_text(value):
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return value


def main(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        families = [
            {
                "name": family.name,
                "type": family.type,
                "documentation": family.documentation,
                "samples": [
                    {"name": s.name, "labels": s.labels, "value": finite_or_text(s.value)}
                    for s in family.samples
                ],
            }
            for family in text_string_to_metric_families(text)
        ]
    except Exception as error:  # the parser raises ValueError and others on bad input
        print(f"parse_exposition: {error}", file=sys.stderr)
        return 1
    json.dump({"families": families}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
