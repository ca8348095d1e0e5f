// The agent executions dashboard, as Grafana's JSON model, parameterised by _config: the
// selectors (dashboardSelector, alertsSelector), the common variables (lib/variables.libsonnet),
// tags and drill-down links (lib/drilldown.libsonnet). mixin/render.py --write renders it to
// dashboards/agent-executions.json; edit here, not there.
local variables = import '../lib/variables.libsonnet';

{
  grafanaDashboards+:: {
    'agent-executions.json': {
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
      "description": "Completed agent executions as denials-exporter reads them from the executor's log: outcomes, cost, tokens, turns and duration by workflow.",
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
          "title": "Executions",
          "description": "Executions that completed in the selected time range, whatever their outcome.",
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
              "expr": ("sum(increase(agent_executions_total{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__range]))" % $._config),
              "legendFormat": "executions",
              "range": false,
              "instant": true,
              "refId": "A"
            }
          ]
        },
        {
          "id": 2,
          "type": "stat",
          "title": "Failure ratio",
          "description": "Share of the executions in the range whose outcome was not success.",
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
              "unit": "percentunit",
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
                    "value": 0.1
                  },
                  {
                    "color": "red",
                    "value": 0.25
                  }
                ]
              },
              "decimals": 1
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
              "expr": ("(sum(increase(agent_executions_total{%(dashboardSelector)s, workflow=~\"$workflow\", outcome!=\"success\"}[$__range])) or sum(increase(agent_executions_total{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__range])) * 0) / sum(increase(agent_executions_total{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__range]))" % $._config),
              "legendFormat": "failed",
              "range": false,
              "instant": true,
              "refId": "A"
            }
          ]
        },
        {
          "id": 3,
          "type": "stat",
          "title": "Spend",
          "description": "USD spent by the executions that completed in the selected time range (agent_execution_cost_usd_sum).",
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
              "unit": "currencyUSD",
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
              "expr": ("sum(increase(agent_execution_cost_usd_sum{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__range]))" % $._config),
              "legendFormat": "spend",
              "range": false,
              "instant": true,
              "refId": "A"
            }
          ]
        },
        {
          "id": 4,
          "type": "stat",
          "title": "Cost per execution",
          "description": "Average USD per execution in the selected time range.",
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
              "unit": "currencyUSD",
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
              },
              "decimals": 2
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
              "expr": ("sum(increase(agent_execution_cost_usd_sum{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__range])) / sum(increase(agent_execution_cost_usd_count{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__range]))" % $._config),
              "legendFormat": "mean",
              "range": false,
              "instant": true,
              "refId": "A"
            }
          ]
        },
        {
          "id": 5,
          "type": "stat",
          "title": "Tokens",
          "description": "Tokens of every kind (input, output, cache read, cache creation) in the selected time range.",
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
              "expr": ("sum(increase(agent_tokens_total{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__range]))" % $._config),
              "legendFormat": "tokens",
              "range": false,
              "instant": true,
              "refId": "A"
            }
          ]
        },
        {
          "id": 6,
          "type": "stat",
          "title": "Median duration",
          "description": "Median wall time of the executions in the selected time range (from the histogram buckets: an estimate).",
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
              "expr": ("histogram_quantile(0.5, sum by (le) (increase(agent_execution_duration_seconds_bucket{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__range])))" % $._config),
              "legendFormat": "p50",
              "range": false,
              "instant": true,
              "refId": "A"
            }
          ]
        },
        {
          "id": 7,
          "type": "timeseries",
          "title": "Executions by workflow and outcome",
          "description": "Completed executions per minute, by workflow and SDK result subtype (success, error_max_turns, ...).",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 0,
            "y": 4,
            "w": 12,
            "h": 9
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
              "expr": ("sum by (workflow, outcome) (rate(agent_executions_total{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__rate_interval])) * 60" % $._config),
              "legendFormat": "{{workflow}} {{outcome}}",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        {
          "id": 8,
          "type": "timeseries",
          "title": "Failures by workflow and outcome",
          "description": "Executions per minute whose outcome was not success, by workflow and outcome. A workflow without failures shows a flat line labelled none.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 12,
            "y": 4,
            "w": 12,
            "h": 9
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
              "expr": ("sum by (workflow, outcome) (rate(agent_executions_total{%(dashboardSelector)s, workflow=~\"$workflow\", outcome!=\"success\"}[$__rate_interval])) * 60 or on (workflow) label_replace(sum by (workflow) (rate(agent_executions_total{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__rate_interval])) * 0, \"outcome\", \"none\", \"\", \"\")" % $._config),
              "legendFormat": "{{workflow}} {{outcome}}",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        {
          "id": 9,
          "type": "timeseries",
          "title": "Failure ratio by workflow",
          "description": "Share of each workflow's executions whose outcome was not success.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 0,
            "y": 13,
            "w": 12,
            "h": 9
          },
          "fieldConfig": {
            "defaults": {
              "unit": "percentunit",
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
              "expr": ("(sum by (workflow) (rate(agent_executions_total{%(dashboardSelector)s, workflow=~\"$workflow\", outcome!=\"success\"}[$__rate_interval])) or sum by (workflow) (rate(agent_executions_total{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__rate_interval])) * 0) / sum by (workflow) (rate(agent_executions_total{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__rate_interval]))" % $._config),
              "legendFormat": "{{workflow}}",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        {
          "id": 10,
          "type": "timeseries",
          "title": "Spend per hour by workflow",
          "description": "USD per hour at the current pace, by workflow (rate of agent_execution_cost_usd_sum times 3600). Counted when an execution completes.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 12,
            "y": 13,
            "w": 12,
            "h": 9
          },
          "fieldConfig": {
            "defaults": {
              "unit": "currencyUSD",
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
              "expr": ("sum by (workflow) (rate(agent_execution_cost_usd_sum{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__rate_interval])) * 3600" % $._config),
              "legendFormat": "{{workflow}}",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        {
          "id": 11,
          "type": "timeseries",
          "title": "Cost per execution by workflow",
          "description": "Average USD per execution, by workflow (agent_execution_cost_usd_sum / _count).",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 0,
            "y": 22,
            "w": 12,
            "h": 9
          },
          "fieldConfig": {
            "defaults": {
              "unit": "currencyUSD",
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
              "expr": ("sum by (workflow) (rate(agent_execution_cost_usd_sum{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__rate_interval])) / sum by (workflow) (rate(agent_execution_cost_usd_count{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__rate_interval]))" % $._config),
              "legendFormat": "{{workflow}}",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        {
          "id": 12,
          "type": "timeseries",
          "title": "Tokens per minute by kind",
          "description": "Tokens per minute by kind: input, output, cache_read, cache_creation.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 12,
            "y": 22,
            "w": 12,
            "h": 9
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
              "expr": ("sum by (kind) (rate(agent_tokens_total{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__rate_interval])) * 60" % $._config),
              "legendFormat": "{{kind}}",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        {
          "id": 13,
          "type": "timeseries",
          "title": "Turns per execution",
          "description": "p50, p90 and p99 of the turns an execution took (agent_execution_turns). Executions ending at error_max_turns sit at the configured limit.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 0,
            "y": 31,
            "w": 12,
            "h": 9
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
              "expr": ("histogram_quantile(0.5, sum by (le) (rate(agent_execution_turns_bucket{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__rate_interval])))" % $._config),
              "legendFormat": "p50",
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
              "expr": ("histogram_quantile(0.9, sum by (le) (rate(agent_execution_turns_bucket{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__rate_interval])))" % $._config),
              "legendFormat": "p90",
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
              "expr": ("histogram_quantile(0.99, sum by (le) (rate(agent_execution_turns_bucket{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__rate_interval])))" % $._config),
              "legendFormat": "p99",
              "range": true,
              "instant": false,
              "refId": "C"
            }
          ]
        },
        {
          "id": 14,
          "type": "timeseries",
          "title": "Execution duration",
          "description": "p50, p90 and p99 of execution wall time (agent_execution_duration_seconds).",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 12,
            "y": 31,
            "w": 12,
            "h": 9
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
              "expr": ("histogram_quantile(0.5, sum by (le) (rate(agent_execution_duration_seconds_bucket{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__rate_interval])))" % $._config),
              "legendFormat": "p50",
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
              "expr": ("histogram_quantile(0.9, sum by (le) (rate(agent_execution_duration_seconds_bucket{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__rate_interval])))" % $._config),
              "legendFormat": "p90",
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
              "expr": ("histogram_quantile(0.99, sum by (le) (rate(agent_execution_duration_seconds_bucket{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__rate_interval])))" % $._config),
              "legendFormat": "p99",
              "range": true,
              "instant": false,
              "refId": "C"
            }
          ]
        },
        {
          "id": 15,
          "type": "bargauge",
          "title": "Spend by workflow",
          "description": "USD spent per workflow in the selected time range, most expensive first.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 0,
            "y": 40,
            "w": 12,
            "h": 9
          },
          "fieldConfig": {
            "defaults": {
              "unit": "currencyUSD",
              "color": {
                "mode": "continuous-BlYlRd"
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
            "displayMode": "gradient",
            "orientation": "horizontal",
            "valueMode": "color",
            "reduceOptions": {
              "calcs": [
                "lastNotNull"
              ],
              "fields": "",
              "values": false
            },
            "showUnfilled": true,
            "minVizHeight": 16,
            "minVizWidth": 8,
            "namePlacement": "auto",
            "sizing": "auto"
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("sort_desc(sum by (workflow) (increase(agent_execution_cost_usd_sum{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__range])))" % $._config),
              "legendFormat": "{{workflow}}",
              "range": false,
              "instant": true,
              "refId": "A"
            }
          ]
        },
        {
          "id": 16,
          "type": "table",
          "title": "Executions by workflow and outcome",
          "description": "Executions completed in the selected time range, by workflow and outcome.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 12,
            "y": 40,
            "w": 12,
            "h": 9
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
                "align": "auto",
                "cellOptions": {
                  "type": "auto"
                },
                "inspect": false
              }
            },
            "overrides": []
          },
          "options": {
            "showHeader": true,
            "cellHeight": "sm",
            "footer": {
              "show": false,
              "reducer": [
                "sum"
              ],
              "countRows": false,
              "fields": ""
            },
            "sortBy": [
              {
                "displayName": "Executions",
                "desc": true
              }
            ]
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("sum by (workflow, outcome) (increase(agent_executions_total{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__range]))" % $._config),
              "legendFormat": "",
              "range": false,
              "instant": true,
              "refId": "A",
              "format": "table"
            }
          ],
          "transformations": [
            {
              "id": "organize",
              "options": {
                "excludeByName": {
                  "Time": true
                },
                "renameByName": {
                  "Value": "Executions"
                },
                "indexByName": {
                  "workflow": 0,
                  "outcome": 1,
                  "Value": 2
                }
              }
            }
          ]
        },
        {
          "id": 17,
          "type": "timeseries",
          "title": "Spend per hour by model",
          "description": "USD per hour at the current pace, by model (rate of agent_cost_usd_total times 3600), from the SDK's modelUsage (costUSD per model). In a streaming-input session each result adds its increase of the session's cumulative modelUsage. model=\"unknown\" is spend no modelUsage attributes (records without it).",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 0,
            "y": 49,
            "w": 12,
            "h": 9
          },
          "fieldConfig": {
            "defaults": {
              "unit": "currencyUSD",
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
              "expr": ("sum by (model) (rate(agent_cost_usd_total{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__rate_interval])) * 3600" % $._config),
              "legendFormat": "{{model}}",
              "range": true,
              "instant": false,
              "refId": "A",
              "exemplar": true
            }
          ]
        },
        {
          "id": 18,
          "type": "timeseries",
          "title": "Tokens per minute by model and kind",
          "description": "Tokens per minute by model and kind (input, output, cache_read, cache_creation), from the SDK's modelUsage (agent_tokens_by_model_total). The complete figure: the result's `usage` covers only the last turn's main loop. Summed over models this is agent_tokens_total.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 12,
            "y": 49,
            "w": 12,
            "h": 9
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
              "expr": ("sum by (model, kind) (rate(agent_tokens_by_model_total{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__rate_interval])) * 60" % $._config),
              "legendFormat": "{{model}} {{kind}}",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        {
          "id": 19,
          "type": "bargauge",
          "title": "Spend by model",
          "description": "USD spent in the selected time range, by model (increase of agent_cost_usd_total), from the SDK's modelUsage. Sums to the Spend stat when every record carries modelUsage with costUSD.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 0,
            "y": 58,
            "w": 12,
            "h": 9
          },
          "fieldConfig": {
            "defaults": {
              "unit": "currencyUSD",
              "color": {
                "mode": "continuous-BlYlRd"
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
            "displayMode": "gradient",
            "orientation": "horizontal",
            "valueMode": "color",
            "reduceOptions": {
              "calcs": [
                "lastNotNull"
              ],
              "fields": "",
              "values": false
            },
            "showUnfilled": true,
            "minVizHeight": 16,
            "minVizWidth": 8,
            "namePlacement": "auto",
            "sizing": "auto"
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("sort_desc(sum by (model) (increase(agent_cost_usd_total{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__range])))" % $._config),
              "legendFormat": "{{model}}",
              "range": false,
              "instant": true,
              "refId": "A"
            }
          ]
        },
        {
          "id": 20,
          "type": "bargauge",
          "title": "Tokens by model",
          "description": "Tokens used in the selected time range, by model, all kinds (increase of agent_tokens_by_model_total), from the SDK's modelUsage.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 12,
            "y": 58,
            "w": 12,
            "h": 9
          },
          "fieldConfig": {
            "defaults": {
              "unit": "short",
              "color": {
                "mode": "continuous-BlYlRd"
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
            "displayMode": "gradient",
            "orientation": "horizontal",
            "valueMode": "color",
            "reduceOptions": {
              "calcs": [
                "lastNotNull"
              ],
              "fields": "",
              "values": false
            },
            "showUnfilled": true,
            "minVizHeight": 16,
            "minVizWidth": 8,
            "namePlacement": "auto",
            "sizing": "auto"
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("sort_desc(sum by (model) (increase(agent_tokens_by_model_total{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__range])))" % $._config),
              "legendFormat": "{{model}}",
              "range": false,
              "instant": true,
              "refId": "A"
            }
          ]
        }
      ],
      "refresh": "1m",
      "schemaVersion": 39,
      "tags": $._config.dashboardTags,
      "templating": {
        "list": variables($._config) + [
          {
            "name": "workflow",
            "label": "Workflow",
            "description": "",
            "type": "query",
            "datasource": {
              "type": "prometheus",
              "uid": "${prometheus_datasource}"
            },
            "definition": ("label_values(agent_executions_total{%(dashboardSelector)s}, workflow)" % $._config),
            "query": {
              "qryType": 1,
              "query": ("label_values(agent_executions_total{%(dashboardSelector)s}, workflow)" % $._config),
              "refId": "PrometheusVariableQueryEditor-VariableQuery"
            },
            "includeAll": true,
            "multi": true,
            "current": {
              "selected": true,
              "text": [
                "All"
              ],
              "value": [
                "$__all"
              ]
            },
            "hide": 0,
            "options": [],
            "refresh": 2,
            "regex": "",
            "skipUrlSync": false,
            "sort": 1,
            "allValue": ".*"
          }
        ]
      },
      "time": {
        "from": "now-6h",
        "to": "now"
      },
      "timepicker": {},
      "timezone": "",
      "title": "Agent executions",
      "uid": "denials-exporter-executions",
      "version": 1,
      "weekStart": ""
    },
  },
}
