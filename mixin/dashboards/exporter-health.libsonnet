// The exporter health dashboard, as Grafana's JSON model, parameterised by _config: the
// selectors (dashboardSelector, alertsSelector), the common variables (lib/variables.libsonnet),
// tags and drill-down links (lib/drilldown.libsonnet). mixin/render.py --write renders it to
// dashboards/exporter-health.json; edit here, not there.
local variables = import '../lib/variables.libsonnet';

// The process panels (memory, CPU, restarts) read the process_* families every Prometheus client
// library serves. The memory limit line is each exporter container's own limit, as kube-state-metrics
// reports it (kube_pod_container_resource_limits{resource="memory"}, container exporterContainer,
// default 'denials-exporter'): no line where kube-state-metrics is not scraped, rather than a
// constant that may not be the pod's.
local processSettings(config) = {
  container: std.get(config, 'exporterContainer', 'denials-exporter'),
};

// A timeseries panel of the process row.
local processPanel(id, x, title, description, unit, targets, overrides=[]) = {
  "id": id,
  "type": "timeseries",
  "title": title,
  "description": description,
  "datasource": {
    "type": "prometheus",
    "uid": "${prometheus_datasource}"
  },
  "gridPos": {
    "x": x,
    "y": 52,
    "w": 8,
    "h": 8
  },
  "fieldConfig": {
    "defaults": {
      "unit": unit,
      "color": {
        "mode": "palette-classic"
      },
      "thresholds": {
        "mode": "absolute",
        "steps": [
          {
            "color": "green",
            "value": null
          }
        ]
      },
      "custom": {
        "drawStyle": "line",
        "lineInterpolation": "linear",
        "lineWidth": 1,
        "fillOpacity": 10,
        "gradientMode": "none",
        "showPoints": "never",
        "spanNulls": false,
        "axisSoftMin": 0,
        "stacking": {
          "mode": "none",
          "group": "A"
        }
      }
    },
    "overrides": overrides
  },
  "options": {
    "legend": {
      "displayMode": "table",
      "placement": "bottom",
      "showLegend": true,
      "calcs": [
        "mean",
        "max",
        "lastNotNull"
      ]
    },
    "tooltip": {
      "mode": "multi",
      "sort": "desc"
    }
  },
  "targets": [
    {
      "datasource": {
        "type": "prometheus",
        "uid": "${prometheus_datasource}"
      },
      "editorMode": "code",
      "expr": t.expr,
      "legendFormat": t.legend,
      "range": true,
      "instant": false,
      "refId": std.char(std.codepoint('A') + i)
    }
    for i in std.range(0, std.length(targets) - 1)
    for t in [targets[i]]
  ]
};

// The limit line: red, dashed, not filled.
local limitOverride = {
  "matcher": {
    "id": "byName",
    "options": "limit"
  },
  "properties": [
    {
      "id": "color",
      "value": {
        "mode": "fixed",
        "fixedColor": "red"
      }
    },
    {
      "id": "custom.lineStyle",
      "value": {
        "fill": "dash",
        "dash": [10, 10]
      }
    },
    {
      "id": "custom.fillOpacity",
      "value": 0
    }
  ]
};

{
  grafanaDashboards+:: {
    'exporter-health.json': {
      "annotations": {
        "list": [
          {
            "builtIn": 1,
            "datasource": {
              "type": "grafana",
              "uid": "-- Grafana --"
            },
            "enable": true,
            "hide": true,
            "iconColor": "rgba(0, 211, 255, 1)",
            "name": "Annotations & Alerts",
            "type": "dashboard"
          }
        ]
      },
      "description": "denials-exporter itself: scrapes, reading, decoding, label caps, files, state file, reconciliation, and the process (memory against the limit, CPU, restarts).",
      "editable": false,
      "fiscalYearStartMonth": 0,
      "graphTooltip": 1,
      "id": null,
      "links": [
        {
          "asDropdown": false,
          "icon": "external link",
          "includeVars": true,
          "keepTime": true,
          "tags": $._config.dashboardTags,
          "targetBlank": false,
          "title": "denials-exporter",
          "tooltip": "",
          "type": "dashboards",
          "url": ""
        }
      ],
      "panels": [
        {
          "id": 1,
          "type": "stat",
          "title": "Targets up",
          "description": "Exporter targets Prometheus scraped successfully at the last scrape (up == 1).",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 0,
            "y": 0,
            "w": 4,
            "h": 4
          },
          "fieldConfig": {
            "defaults": {
              "unit": "short",
              "color": {
                "mode": "thresholds"
              },
              "thresholds": {
                "mode": "absolute",
                "steps": [
                  {
                    "color": "green",
                    "value": null
                  }
                ]
              }
            },
            "overrides": []
          },
          "options": {
            "reduceOptions": {
              "calcs": [
                "lastNotNull"
              ],
              "fields": "",
              "values": false
            },
            "colorMode": "value",
            "graphMode": "none",
            "justifyMode": "auto",
            "orientation": "auto",
            "textMode": "auto",
            "wideLayout": true
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("sum(up{%(upSelector)s})" % $._config),
              "legendFormat": "up",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        {
          "id": 2,
          "type": "stat",
          "title": "Targets down",
          "description": "Exporter targets whose last scrape failed: DenialsExporterDown fires after 5 minutes.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 4,
            "y": 0,
            "w": 4,
            "h": 4
          },
          "fieldConfig": {
            "defaults": {
              "unit": "short",
              "color": {
                "mode": "thresholds"
              },
              "thresholds": {
                "mode": "absolute",
                "steps": [
                  {
                    "color": "green",
                    "value": null
                  },
                  {
                    "color": "red",
                    "value": 1
                  }
                ]
              }
            },
            "overrides": []
          },
          "options": {
            "reduceOptions": {
              "calcs": [
                "lastNotNull"
              ],
              "fields": "",
              "values": false
            },
            "colorMode": "value",
            "graphMode": "none",
            "justifyMode": "auto",
            "orientation": "auto",
            "textMode": "auto",
            "wideLayout": true
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("sum(1 - up{%(upSelector)s})" % $._config),
              "legendFormat": "down",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        {
          "id": 3,
          "type": "stat",
          "title": "Versions",
          "description": "Running exporters by version (denials_exporter_build_info).",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 8,
            "y": 0,
            "w": 4,
            "h": 4
          },
          "fieldConfig": {
            "defaults": {
              "unit": "short",
              "color": {
                "mode": "thresholds"
              },
              "thresholds": {
                "mode": "absolute",
                "steps": [
                  {
                    "color": "green",
                    "value": null
                  }
                ]
              }
            },
            "overrides": []
          },
          "options": {
            "reduceOptions": {
              "calcs": [
                "lastNotNull"
              ],
              "fields": "",
              "values": false
            },
            "colorMode": "value",
            "graphMode": "none",
            "justifyMode": "auto",
            "orientation": "auto",
            "textMode": "value_and_name",
            "wideLayout": true
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("count by (version) (denials_exporter_build_info{%(dashboardSelector)s})" % $._config),
              "legendFormat": "{{version}}",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        {
          "id": 4,
          "type": "stat",
          "title": "Files followed",
          "description": "Log files the exporters follow now (run mode).",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 12,
            "y": 0,
            "w": 4,
            "h": 4
          },
          "fieldConfig": {
            "defaults": {
              "unit": "short",
              "color": {
                "mode": "thresholds"
              },
              "thresholds": {
                "mode": "absolute",
                "steps": [
                  {
                    "color": "red",
                    "value": null
                  },
                  {
                    "color": "green",
                    "value": 1
                  }
                ]
              }
            },
            "overrides": []
          },
          "options": {
            "reduceOptions": {
              "calcs": [
                "lastNotNull"
              ],
              "fields": "",
              "values": false
            },
            "colorMode": "value",
            "graphMode": "none",
            "justifyMode": "auto",
            "orientation": "auto",
            "textMode": "auto",
            "wideLayout": true
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("sum(denials_exporter_files_followed{%(dashboardSelector)s})" % $._config),
              "legendFormat": "files",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        {
          "id": 5,
          "type": "stat",
          "title": "State-file age",
          "description": "Seconds since the oldest exporter state file was last written (written every --state-interval, default 5 s). DenialsExporterStateFileStale fires past 15 minutes. No data: no --state-file.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 16,
            "y": 0,
            "w": 4,
            "h": 4
          },
          "fieldConfig": {
            "defaults": {
              "unit": "s",
              "color": {
                "mode": "thresholds"
              },
              "thresholds": {
                "mode": "absolute",
                "steps": [
                  {
                    "color": "green",
                    "value": null
                  },
                  {
                    "color": "orange",
                    "value": 300
                  },
                  {
                    "color": "red",
                    "value": 900
                  }
                ]
              }
            },
            "overrides": []
          },
          "options": {
            "reduceOptions": {
              "calcs": [
                "lastNotNull"
              ],
              "fields": "",
              "values": false
            },
            "colorMode": "value",
            "graphMode": "none",
            "justifyMode": "auto",
            "orientation": "auto",
            "textMode": "auto",
            "wideLayout": true
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("max(time() - (denials_exporter_state_last_write_timestamp_seconds{%(dashboardSelector)s} > 0))" % $._config),
              "legendFormat": "age",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        {
          "id": 6,
          "type": "stat",
          "title": "Executions tracked",
          "description": "Executions held for reconciliation (started, not yet completed) across exporters.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 20,
            "y": 0,
            "w": 4,
            "h": 4
          },
          "fieldConfig": {
            "defaults": {
              "unit": "short",
              "color": {
                "mode": "thresholds"
              },
              "thresholds": {
                "mode": "absolute",
                "steps": [
                  {
                    "color": "green",
                    "value": null
                  }
                ]
              }
            },
            "overrides": []
          },
          "options": {
            "reduceOptions": {
              "calcs": [
                "lastNotNull"
              ],
              "fields": "",
              "values": false
            },
            "colorMode": "value",
            "graphMode": "area",
            "justifyMode": "auto",
            "orientation": "auto",
            "textMode": "auto",
            "wideLayout": true
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("sum(denials_exporter_executions_tracked{%(dashboardSelector)s})" % $._config),
              "legendFormat": "tracked",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        {
          "id": 7,
          "type": "timeseries",
          "title": "Scrape status",
          "description": "up per exporter target: 1 scraped, 0 failed.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 0,
            "y": 4,
            "w": 12,
            "h": 8
          },
          "fieldConfig": {
            "defaults": {
              "unit": "short",
              "color": {
                "mode": "palette-classic"
              },
              "thresholds": {
                "mode": "absolute",
                "steps": [
                  {
                    "color": "green",
                    "value": null
                  }
                ]
              },
              "min": 0,
              "max": 1,
              "decimals": 0,
              "custom": {
                "drawStyle": "line",
                "lineInterpolation": "linear",
                "lineWidth": 1,
                "fillOpacity": 10,
                "gradientMode": "none",
                "showPoints": "never",
                "spanNulls": false,
                "axisSoftMin": 0,
                "stacking": {
                  "mode": "none",
                  "group": "A"
                }
              }
            },
            "overrides": []
          },
          "options": {
            "legend": {
              "displayMode": "table",
              "placement": "bottom",
              "showLegend": true,
              "calcs": [
                "mean",
                "max",
                "lastNotNull"
              ]
            },
            "tooltip": {
              "mode": "multi",
              "sort": "desc"
            }
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("up{%(upSelector)s}" % $._config),
              "legendFormat": "{{pod}} {{instance}}",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        {
          "id": 8,
          "type": "timeseries",
          "title": "Bytes read per second",
          "description": "Log bytes read per second, by exporter.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 12,
            "y": 4,
            "w": 12,
            "h": 8
          },
          "fieldConfig": {
            "defaults": {
              "unit": "Bps",
              "color": {
                "mode": "palette-classic"
              },
              "thresholds": {
                "mode": "absolute",
                "steps": [
                  {
                    "color": "green",
                    "value": null
                  }
                ]
              },
              "custom": {
                "drawStyle": "line",
                "lineInterpolation": "linear",
                "lineWidth": 1,
                "fillOpacity": 10,
                "gradientMode": "none",
                "showPoints": "never",
                "spanNulls": false,
                "axisSoftMin": 0,
                "stacking": {
                  "mode": "none",
                  "group": "A"
                }
              }
            },
            "overrides": []
          },
          "options": {
            "legend": {
              "displayMode": "table",
              "placement": "bottom",
              "showLegend": true,
              "calcs": [
                "mean",
                "max",
                "lastNotNull"
              ]
            },
            "tooltip": {
              "mode": "multi",
              "sort": "desc"
            }
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("sum by (pod, instance) (rate(denials_exporter_read_bytes_total{%(dashboardSelector)s}[$__rate_interval]))" % $._config),
              "legendFormat": "{{pod}} {{instance}}",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        {
          "id": 9,
          "type": "timeseries",
          "title": "Lines per second by outcome",
          "description": "Lines read per second by outcome: counted, duplicate (seen before), ignored (not a denial or an execution record), malformed, oversized, non_utf8.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 0,
            "y": 12,
            "w": 12,
            "h": 8
          },
          "fieldConfig": {
            "defaults": {
              "unit": "cps",
              "color": {
                "mode": "palette-classic"
              },
              "thresholds": {
                "mode": "absolute",
                "steps": [
                  {
                    "color": "green",
                    "value": null
                  }
                ]
              },
              "custom": {
                "drawStyle": "line",
                "lineInterpolation": "linear",
                "lineWidth": 1,
                "fillOpacity": 10,
                "gradientMode": "none",
                "showPoints": "never",
                "spanNulls": false,
                "axisSoftMin": 0,
                "stacking": {
                  "mode": "normal",
                  "group": "A"
                }
              }
            },
            "overrides": []
          },
          "options": {
            "legend": {
              "displayMode": "table",
              "placement": "bottom",
              "showLegend": true,
              "calcs": [
                "mean",
                "max",
                "lastNotNull"
              ]
            },
            "tooltip": {
              "mode": "multi",
              "sort": "desc"
            }
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("sum by (outcome) (rate(denials_exporter_lines_total{%(dashboardSelector)s}[$__rate_interval]))" % $._config),
              "legendFormat": "{{outcome}}",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        {
          "id": 10,
          "type": "timeseries",
          "title": "Malformed, oversized and non-UTF-8 lines",
          "description": "Lines the exporter could not decode, per second, by outcome. DenialsExporterMalformedLines fires above 1% of all lines. A flat line labelled none: no such line.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 12,
            "y": 12,
            "w": 12,
            "h": 8
          },
          "fieldConfig": {
            "defaults": {
              "unit": "cps",
              "color": {
                "mode": "palette-classic"
              },
              "thresholds": {
                "mode": "absolute",
                "steps": [
                  {
                    "color": "green",
                    "value": null
                  }
                ]
              },
              "custom": {
                "drawStyle": "line",
                "lineInterpolation": "linear",
                "lineWidth": 1,
                "fillOpacity": 10,
                "gradientMode": "none",
                "showPoints": "never",
                "spanNulls": false,
                "axisSoftMin": 0,
                "stacking": {
                  "mode": "none",
                  "group": "A"
                }
              }
            },
            "overrides": []
          },
          "options": {
            "legend": {
              "displayMode": "table",
              "placement": "bottom",
              "showLegend": true,
              "calcs": [
                "mean",
                "max",
                "lastNotNull"
              ]
            },
            "tooltip": {
              "mode": "multi",
              "sort": "desc"
            }
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("sum by (outcome) (rate(denials_exporter_lines_total{%(dashboardSelector)s, outcome=~\"malformed|oversized|non_utf8\"}[$__rate_interval])) or on () label_replace(sum(rate(denials_exporter_lines_total{%(dashboardSelector)s}[$__rate_interval])) * 0, \"outcome\", \"none\", \"\", \"\")" % $._config),
              "legendFormat": "{{outcome}}",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        {
          "id": 11,
          "type": "timeseries",
          "title": "Redactions by kind",
          "description": "Secrets replaced per minute, by kind (in audit lines and the exporter's own output). A kind has a series only once it has replaced a secret, so no data means none was replaced, and a kind's first replacement is not in its rate (docs/metrics.md).",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 0,
            "y": 20,
            "w": 8,
            "h": 8
          },
          "fieldConfig": {
            "defaults": {
              "unit": "opm",
              "color": {
                "mode": "palette-classic"
              },
              "thresholds": {
                "mode": "absolute",
                "steps": [
                  {
                    "color": "green",
                    "value": null
                  }
                ]
              },
              "custom": {
                "drawStyle": "line",
                "lineInterpolation": "linear",
                "lineWidth": 1,
                "fillOpacity": 10,
                "gradientMode": "none",
                "showPoints": "never",
                "spanNulls": false,
                "axisSoftMin": 0,
                "stacking": {
                  "mode": "none",
                  "group": "A"
                }
              }
            },
            "overrides": []
          },
          "options": {
            "legend": {
              "displayMode": "table",
              "placement": "bottom",
              "showLegend": true,
              "calcs": [
                "mean",
                "max",
                "lastNotNull"
              ]
            },
            "tooltip": {
              "mode": "multi",
              "sort": "desc"
            }
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("sum by (kind) (rate(denials_exporter_redactions_total{%(dashboardSelector)s}[$__rate_interval])) * 60" % $._config),
              "legendFormat": "{{kind}}",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        {
          "id": 12,
          "type": "timeseries",
          "title": "Label overflow and invalid values",
          "description": "tool and workflow values per minute mapped to other (cap reached: DenialsExporterLabelOverflow) or to invalid (bad charset or length).",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 8,
            "y": 20,
            "w": 8,
            "h": 8
          },
          "fieldConfig": {
            "defaults": {
              "unit": "opm",
              "color": {
                "mode": "palette-classic"
              },
              "thresholds": {
                "mode": "absolute",
                "steps": [
                  {
                    "color": "green",
                    "value": null
                  }
                ]
              },
              "custom": {
                "drawStyle": "line",
                "lineInterpolation": "linear",
                "lineWidth": 1,
                "fillOpacity": 10,
                "gradientMode": "none",
                "showPoints": "never",
                "spanNulls": false,
                "axisSoftMin": 0,
                "stacking": {
                  "mode": "none",
                  "group": "A"
                }
              }
            },
            "overrides": []
          },
          "options": {
            "legend": {
              "displayMode": "table",
              "placement": "bottom",
              "showLegend": true,
              "calcs": [
                "mean",
                "max",
                "lastNotNull"
              ]
            },
            "tooltip": {
              "mode": "multi",
              "sort": "desc"
            }
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("sum by (label) (rate(denials_exporter_label_overflow_total{%(dashboardSelector)s}[$__rate_interval])) * 60" % $._config),
              "legendFormat": "overflow {{label}}",
              "range": true,
              "instant": false,
              "refId": "A"
            },
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("sum by (label) (rate(denials_exporter_label_invalid_total{%(dashboardSelector)s}[$__rate_interval])) * 60" % $._config),
              "legendFormat": "invalid {{label}}",
              "range": true,
              "instant": false,
              "refId": "B"
            }
          ]
        },
        {
          "id": 13,
          "type": "timeseries",
          "title": "Admitted label values",
          "description": "Distinct tool and workflow values admitted so far, per exporter; at the cap new values become other.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 16,
            "y": 20,
            "w": 8,
            "h": 8
          },
          "fieldConfig": {
            "defaults": {
              "unit": "short",
              "color": {
                "mode": "palette-classic"
              },
              "thresholds": {
                "mode": "absolute",
                "steps": [
                  {
                    "color": "green",
                    "value": null
                  }
                ]
              },
              "custom": {
                "drawStyle": "line",
                "lineInterpolation": "linear",
                "lineWidth": 1,
                "fillOpacity": 10,
                "gradientMode": "none",
                "showPoints": "never",
                "spanNulls": false,
                "axisSoftMin": 0,
                "stacking": {
                  "mode": "none",
                  "group": "A"
                }
              }
            },
            "overrides": []
          },
          "options": {
            "legend": {
              "displayMode": "table",
              "placement": "bottom",
              "showLegend": true,
              "calcs": [
                "mean",
                "max",
                "lastNotNull"
              ]
            },
            "tooltip": {
              "mode": "multi",
              "sort": "desc"
            }
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("max by (pod, instance, label) (denials_exporter_label_values{%(dashboardSelector)s})" % $._config),
              "legendFormat": "{{pod}} {{instance}} {{label}}",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        {
          "id": 14,
          "type": "timeseries",
          "title": "Unread bytes per file",
          "description": "Bytes written to each followed file but not yet read (lag). Growing with no bytes read: DenialsExporterNotReading.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 0,
            "y": 28,
            "w": 12,
            "h": 8
          },
          "fieldConfig": {
            "defaults": {
              "unit": "bytes",
              "color": {
                "mode": "palette-classic"
              },
              "thresholds": {
                "mode": "absolute",
                "steps": [
                  {
                    "color": "green",
                    "value": null
                  }
                ]
              },
              "custom": {
                "drawStyle": "line",
                "lineInterpolation": "linear",
                "lineWidth": 1,
                "fillOpacity": 10,
                "gradientMode": "none",
                "showPoints": "never",
                "spanNulls": false,
                "axisSoftMin": 0,
                "stacking": {
                  "mode": "none",
                  "group": "A"
                }
              }
            },
            "overrides": []
          },
          "options": {
            "legend": {
              "displayMode": "table",
              "placement": "bottom",
              "showLegend": true,
              "calcs": [
                "mean",
                "max",
                "lastNotNull"
              ]
            },
            "tooltip": {
              "mode": "multi",
              "sort": "desc"
            }
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("max by (pod, instance, path) (denials_exporter_file_lag_bytes{%(dashboardSelector)s})" % $._config),
              "legendFormat": "{{pod}} {{instance}} {{path}}",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        {
          "id": 15,
          "type": "timeseries",
          "title": "Rotations and truncations",
          "description": "Log rotations (rename, numbered roll, delete) and copytruncate truncations seen, per hour.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 12,
            "y": 28,
            "w": 12,
            "h": 8
          },
          "fieldConfig": {
            "defaults": {
              "unit": "short",
              "color": {
                "mode": "palette-classic"
              },
              "thresholds": {
                "mode": "absolute",
                "steps": [
                  {
                    "color": "green",
                    "value": null
                  }
                ]
              },
              "custom": {
                "drawStyle": "line",
                "lineInterpolation": "linear",
                "lineWidth": 1,
                "fillOpacity": 10,
                "gradientMode": "none",
                "showPoints": "never",
                "spanNulls": false,
                "axisSoftMin": 0,
                "stacking": {
                  "mode": "none",
                  "group": "A"
                }
              }
            },
            "overrides": []
          },
          "options": {
            "legend": {
              "displayMode": "table",
              "placement": "bottom",
              "showLegend": true,
              "calcs": [
                "mean",
                "max",
                "lastNotNull"
              ]
            },
            "tooltip": {
              "mode": "multi",
              "sort": "desc"
            }
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("sum(rate(denials_exporter_rotations_total{%(dashboardSelector)s}[$__rate_interval])) * 3600" % $._config),
              "legendFormat": "rotations/h",
              "range": true,
              "instant": false,
              "refId": "A"
            },
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("sum(rate(denials_exporter_truncations_total{%(dashboardSelector)s}[$__rate_interval])) * 3600" % $._config),
              "legendFormat": "truncations/h",
              "range": true,
              "instant": false,
              "refId": "B"
            }
          ]
        },
        {
          "id": 16,
          "type": "timeseries",
          "title": "File and watcher errors",
          "description": "File errors per minute by kind (open, read, vanished), inotify errors and overflows, and switches from inotify to polling. DenialsExporterFileErrors fires on persistent open/read errors.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 0,
            "y": 36,
            "w": 12,
            "h": 8
          },
          "fieldConfig": {
            "defaults": {
              "unit": "opm",
              "color": {
                "mode": "palette-classic"
              },
              "thresholds": {
                "mode": "absolute",
                "steps": [
                  {
                    "color": "green",
                    "value": null
                  }
                ]
              },
              "custom": {
                "drawStyle": "line",
                "lineInterpolation": "linear",
                "lineWidth": 1,
                "fillOpacity": 10,
                "gradientMode": "none",
                "showPoints": "never",
                "spanNulls": false,
                "axisSoftMin": 0,
                "stacking": {
                  "mode": "none",
                  "group": "A"
                }
              }
            },
            "overrides": []
          },
          "options": {
            "legend": {
              "displayMode": "table",
              "placement": "bottom",
              "showLegend": true,
              "calcs": [
                "mean",
                "max",
                "lastNotNull"
              ]
            },
            "tooltip": {
              "mode": "multi",
              "sort": "desc"
            }
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("sum by (error) (rate(denials_exporter_file_errors_total{%(dashboardSelector)s}[$__rate_interval])) * 60" % $._config),
              "legendFormat": "file {{error}}",
              "range": true,
              "instant": false,
              "refId": "A"
            },
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("sum(rate(denials_exporter_watcher_errors_total{%(dashboardSelector)s}[$__rate_interval])) * 60" % $._config),
              "legendFormat": "watcher errors",
              "range": true,
              "instant": false,
              "refId": "B"
            },
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("sum(rate(denials_exporter_watcher_fallbacks_total{%(dashboardSelector)s}[$__rate_interval])) * 60" % $._config),
              "legendFormat": "fallbacks to polling",
              "range": true,
              "instant": false,
              "refId": "C"
            }
          ]
        },
        {
          "id": 17,
          "type": "timeseries",
          "title": "State-file age",
          "description": "Seconds since each exporter last wrote its state file (time() - denials_exporter_state_last_write_timestamp_seconds; exporters without --state-file are left out).",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 12,
            "y": 36,
            "w": 6,
            "h": 8
          },
          "fieldConfig": {
            "defaults": {
              "unit": "s",
              "color": {
                "mode": "palette-classic"
              },
              "thresholds": {
                "mode": "absolute",
                "steps": [
                  {
                    "color": "green",
                    "value": null
                  }
                ]
              },
              "custom": {
                "drawStyle": "line",
                "lineInterpolation": "linear",
                "lineWidth": 1,
                "fillOpacity": 10,
                "gradientMode": "none",
                "showPoints": "never",
                "spanNulls": false,
                "axisSoftMin": 0,
                "stacking": {
                  "mode": "none",
                  "group": "A"
                }
              }
            },
            "overrides": []
          },
          "options": {
            "legend": {
              "displayMode": "table",
              "placement": "bottom",
              "showLegend": true,
              "calcs": [
                "mean",
                "max",
                "lastNotNull"
              ]
            },
            "tooltip": {
              "mode": "multi",
              "sort": "desc"
            }
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("time() - max by (pod, instance) (denials_exporter_state_last_write_timestamp_seconds{%(dashboardSelector)s} > 0)" % $._config),
              "legendFormat": "{{pod}} {{instance}}",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        {
          "id": 18,
          "type": "timeseries",
          "title": "State writes by result",
          "description": "State-file writes per minute, ok or error.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 18,
            "y": 36,
            "w": 6,
            "h": 8
          },
          "fieldConfig": {
            "defaults": {
              "unit": "opm",
              "color": {
                "mode": "palette-classic"
              },
              "thresholds": {
                "mode": "absolute",
                "steps": [
                  {
                    "color": "green",
                    "value": null
                  }
                ]
              },
              "custom": {
                "drawStyle": "line",
                "lineInterpolation": "linear",
                "lineWidth": 1,
                "fillOpacity": 10,
                "gradientMode": "none",
                "showPoints": "never",
                "spanNulls": false,
                "axisSoftMin": 0,
                "stacking": {
                  "mode": "none",
                  "group": "A"
                }
              }
            },
            "overrides": []
          },
          "options": {
            "legend": {
              "displayMode": "table",
              "placement": "bottom",
              "showLegend": true,
              "calcs": [
                "mean",
                "max",
                "lastNotNull"
              ]
            },
            "tooltip": {
              "mode": "multi",
              "sort": "desc"
            }
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("sum by (result) (rate(denials_exporter_state_writes_total{%(dashboardSelector)s}[$__rate_interval])) * 60" % $._config),
              "legendFormat": "{{result}}",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        {
          "id": 19,
          "type": "timeseries",
          "title": "Executions tracked",
          "description": "Executions held for reconciliation per exporter; bounded by the exporter's cap.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 0,
            "y": 44,
            "w": 8,
            "h": 8
          },
          "fieldConfig": {
            "defaults": {
              "unit": "short",
              "color": {
                "mode": "palette-classic"
              },
              "thresholds": {
                "mode": "absolute",
                "steps": [
                  {
                    "color": "green",
                    "value": null
                  }
                ]
              },
              "custom": {
                "drawStyle": "line",
                "lineInterpolation": "linear",
                "lineWidth": 1,
                "fillOpacity": 10,
                "gradientMode": "none",
                "showPoints": "never",
                "spanNulls": false,
                "axisSoftMin": 0,
                "stacking": {
                  "mode": "none",
                  "group": "A"
                }
              }
            },
            "overrides": []
          },
          "options": {
            "legend": {
              "displayMode": "table",
              "placement": "bottom",
              "showLegend": true,
              "calcs": [
                "mean",
                "max",
                "lastNotNull"
              ]
            },
            "tooltip": {
              "mode": "multi",
              "sort": "desc"
            }
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("sum by (pod, instance) (denials_exporter_executions_tracked{%(dashboardSelector)s})" % $._config),
              "legendFormat": "{{pod}} {{instance}}",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        {
          "id": 20,
          "type": "timeseries",
          "title": "Executions evicted by cause",
          "description": "Reconciliation state dropped per minute: cap (DenialsExporterExecutionsEvicted) or idle timeout.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 8,
            "y": 44,
            "w": 8,
            "h": 8
          },
          "fieldConfig": {
            "defaults": {
              "unit": "opm",
              "color": {
                "mode": "palette-classic"
              },
              "thresholds": {
                "mode": "absolute",
                "steps": [
                  {
                    "color": "green",
                    "value": null
                  }
                ]
              },
              "custom": {
                "drawStyle": "line",
                "lineInterpolation": "linear",
                "lineWidth": 1,
                "fillOpacity": 10,
                "gradientMode": "none",
                "showPoints": "never",
                "spanNulls": false,
                "axisSoftMin": 0,
                "stacking": {
                  "mode": "none",
                  "group": "A"
                }
              }
            },
            "overrides": []
          },
          "options": {
            "legend": {
              "displayMode": "table",
              "placement": "bottom",
              "showLegend": true,
              "calcs": [
                "mean",
                "max",
                "lastNotNull"
              ]
            },
            "tooltip": {
              "mode": "multi",
              "sort": "desc"
            }
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("sum by (cause) (rate(denials_exporter_executions_evicted_total{%(dashboardSelector)s}[$__rate_interval])) * 60" % $._config),
              "legendFormat": "{{cause}}",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        {
          "id": 21,
          "type": "timeseries",
          "title": "Time since the last counted event",
          "description": "Seconds between now and the log time of the last counted event, per exporter. It grows when executors are idle, and when the exporter stops counting. Exporters that have counted nothing yet are left out.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 16,
            "y": 44,
            "w": 8,
            "h": 8
          },
          "fieldConfig": {
            "defaults": {
              "unit": "s",
              "color": {
                "mode": "palette-classic"
              },
              "thresholds": {
                "mode": "absolute",
                "steps": [
                  {
                    "color": "green",
                    "value": null
                  }
                ]
              },
              "custom": {
                "drawStyle": "line",
                "lineInterpolation": "linear",
                "lineWidth": 1,
                "fillOpacity": 10,
                "gradientMode": "none",
                "showPoints": "never",
                "spanNulls": false,
                "axisSoftMin": 0,
                "stacking": {
                  "mode": "none",
                  "group": "A"
                }
              }
            },
            "overrides": []
          },
          "options": {
            "legend": {
              "displayMode": "table",
              "placement": "bottom",
              "showLegend": true,
              "calcs": [
                "mean",
                "max",
                "lastNotNull"
              ]
            },
            "tooltip": {
              "mode": "multi",
              "sort": "desc"
            }
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("time() - max by (pod, instance) (denials_exporter_last_event_timestamp_seconds{%(dashboardSelector)s} > 0)" % $._config),
              "legendFormat": "{{pod}} {{instance}}",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        processPanel(
          22, 0, "Memory against the limit",
          "Resident memory (process_resident_memory_bytes) per exporter, and each exporter container's memory limit (dashed) as kube-state-metrics reports it: the kernel kills the exporter when its memory reaches the limit. Without kube-state-metrics there is no limit line.",
          "bytes",
          [
            {
              expr: ("max by (pod, instance) (process_resident_memory_bytes{%(dashboardSelector)s})" % $._config),
              legend: "{{pod}} {{instance}}",
            },
            {
              // kube-state-metrics' series: its own job and instance, so not $job and $instance
              // (dashboards/.lint records the exception).
              expr: ('max by (pod) (kube_pod_container_resource_limits{%(clusterLabel)s=~"$cluster", namespace=~"$namespace", pod=~"$pod", container="%(container)s", resource="memory"})'
                     % ($._config + { container: processSettings($._config).container })),
              legend: "limit {{pod}}",
            },
          ],
          [limitOverride]
        ),
        processPanel(
          23, 8, "CPU",
          "CPU time per second (rate of process_cpu_seconds_total) per exporter, in cores: 1 is one core busy. The sidecar's limit is 0.2 (200m); a sustained value near it means reading is throttled and lag grows.",
          "short",
          [
            {
              expr: ("sum by (pod, instance) (rate(process_cpu_seconds_total{%(dashboardSelector)s}[$__rate_interval]))" % $._config),
              legend: "{{pod}} {{instance}}",
            },
          ]
        ),
        processPanel(
          24, 16, "Restarts",
          "Exporter processes started per exporter target in the last hour: changes of process_start_time_seconds, so container restarts after a crash or an out-of-memory kill show, and a new pod starts a new series. After a restart /metrics answers 503 until the backlog is read again.",
          "short",
          [
            {
              expr: ("sum by (pod, instance) (changes(process_start_time_seconds{%(dashboardSelector)s}[1h]))" % $._config),
              legend: "{{pod}} {{instance}}",
            },
          ]
        ),
      ],
      "refresh": "1m",
      "schemaVersion": 39,
      "tags": $._config.dashboardTags,
      "templating": {
        "list": variables($._config)
      },
      "time": {
        "from": "now-6h",
        "to": "now"
      },
      "timepicker": {},
      "timezone": "",
      "title": "Exporter health",
      "uid": "denials-exporter-health",
      "version": 1,
      "weekStart": ""
    },
  },
}
