// The permission denials dashboard, as Grafana's JSON model, parameterised by _config: the
// selectors (dashboardSelector, alertsSelector), the common variables (lib/variables.libsonnet),
// tags and drill-down links (lib/drilldown.libsonnet). mixin/render.py --write renders it to
// dashboards/permission-denials.json; edit here, not there.
local drill = import '../lib/drilldown.libsonnet';
local variables = import '../lib/variables.libsonnet';

{
  grafanaDashboards+:: {
    'permission-denials.json': {
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
      "description": "Denied agent tool calls counted by denials-exporter: by tool, reason and workflow, the dangerous ones (by risk class), and denials per execution.",
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
          "title": "Denials",
          "description": "Permission denials counted in the selected time range (increase of permission_denials_total).",
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
              "expr": ("sum(increase(permission_denials_total{%(dashboardSelector)s, workflow=~\"$workflow\", tool=~\"$tool\"}[$__range]))" % $._config),
              "legendFormat": "denials",
              "range": false,
              "instant": true,
              "refId": "A"
            }
          ]
        },
        {
          "id": 2,
          "type": "stat",
          "title": "Denial rate",
          "description": "Denials per minute now, over the last rate interval.",
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
              "unit": "opm",
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
              "expr": ("sum(rate(permission_denials_total{%(dashboardSelector)s, workflow=~\"$workflow\", tool=~\"$tool\"}[$__rate_interval])) * 60" % $._config),
              "legendFormat": "denials/min",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        {
          "id": 3,
          "type": "stat",
          "title": "Dangerous denials",
          "description": "Denials in the selected range whose attempt falls in a dangerous risk class (every class but none and unknown, docs/risk.md), whatever layer denied them: the same question DenialsExporterDangerousDenial asks. Anything above 0 deserves a look at the audit log (What they tried has the classes). A denial counted before its input was known is classified when its execution's record comes.",
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
              "expr": ("sum(increase(permission_denial_risks_total{%(dashboardSelector)s, workflow=~\"$workflow\", tool=~\"$tool\", risk!~\"%(notDangerousRisksRegex)s\"}[$__range])) or sum(increase(permission_denial_risks_total{%(dashboardSelector)s, workflow=~\"$workflow\", tool=~\"$tool\"}[$__range])) * 0" % $._config),
              "legendFormat": "dangerous",
              "range": false,
              "instant": true,
              "refId": "A"
            }
          ]
        },
        {
          "id": 4,
          "type": "stat",
          "title": "Revealed only by the execution record",
          "description": "Share of the denials in the range that only the execution record revealed (reason=\"unknown\": no mid-stream event was logged for them). With the real Agent SDK a large share is normal: PreToolUse hook denials, canUseTool callbacks that deny and path-scoped deny rules (e.g. Read(./.env)) never produce a permission_denied frame, so the executor logs no mid-stream event and they are known only from the record (docs/formats.md). A rise beyond that baseline means mid-stream events are being lost (an executor that does not log its denials as they happen, a broken correlation key): alerts then wait for executions to end, and DenialsExporterUnknownDenialsRising fires.",
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
                    "value": 0.25
                  },
                  {
                    "color": "red",
                    "value": 0.5
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
              "expr": ("(sum(increase(permission_denials_total{%(dashboardSelector)s, workflow=~\"$workflow\", tool=~\"$tool\", reason=\"unknown\"}[$__range])) or sum(increase(permission_denials_total{%(dashboardSelector)s, workflow=~\"$workflow\", tool=~\"$tool\"}[$__range])) * 0) / sum(increase(permission_denials_total{%(dashboardSelector)s, workflow=~\"$workflow\", tool=~\"$tool\"}[$__range]))" % $._config),
              "legendFormat": "share",
              "range": false,
              "instant": true,
              "refId": "A"
            }
          ]
        },
        {
          "id": 5,
          "type": "stat",
          "title": "Denials per execution",
          "description": "Average number of denials an execution recorded in the selected range (agent_execution_denials). The tool filter does not apply.",
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
                  },
                  {
                    "color": "orange",
                    "value": 3
                  },
                  {
                    "color": "red",
                    "value": 5
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
              "expr": ("sum(increase(agent_execution_denials_sum{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__range])) / sum(increase(agent_execution_denials_count{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__range]))" % $._config),
              "legendFormat": "mean",
              "range": false,
              "instant": true,
              "refId": "A"
            }
          ]
        },
        {
          "id": 6,
          "type": "stat",
          "title": "Firing alerts",
          "description": "DenialsExporter alerts firing now (see the table at the bottom).",
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
              "expr": ("count(ALERTS{alertname=~\"DenialsExporter.*\", alertstate=\"firing\", %(alertsSelector)s}) or vector(0)" % $._config),
              "legendFormat": "firing",
              "range": true,
              "instant": false,
              "refId": "A"
            }
          ]
        },
        {
          "id": 7,
          "type": "timeseries",
          "title": "Denial rate by tool",
          "description": "Denials per minute by tool name (tools beyond the exporter's cap show as other, invalid names as invalid). Click a series for the exporter's recent denials of that tool.",
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
              },
              "links": drill.links($._config, 'This tool', [['tool', '=', '${__field.labels.tool}']], 'tool=${__field.labels.tool:percentencode}')
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
              "expr": ("sum by (tool) (rate(permission_denials_total{%(dashboardSelector)s, workflow=~\"$workflow\", tool=~\"$tool\"}[$__rate_interval])) * 60" % $._config),
              "legendFormat": "{{tool}}",
              "range": true,
              "instant": false,
              "refId": "A",
              "exemplar": true
            }
          ]
        },
        {
          "id": 8,
          "type": "timeseries",
          "title": "Denial rate by reason",
          "description": "Denials per minute by the layer that denied (rule, mode, hook, safetyCheck, classifier, user, ...). unknown: only the execution record revealed the denial.",
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
              "links": drill.links($._config, 'This reason', [['reason', '=', '${__field.labels.reason}']], 'reason=${__field.labels.reason:percentencode}'),
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
              "expr": ("sum by (reason) (rate(permission_denials_total{%(dashboardSelector)s, workflow=~\"$workflow\", tool=~\"$tool\"}[$__rate_interval])) * 60" % $._config),
              "legendFormat": "{{reason}}",
              "range": true,
              "instant": false,
              "refId": "A",
              "exemplar": true
            }
          ]
        },
        {
          "id": 9,
          "type": "timeseries",
          "title": "Denial rate by workflow",
          "description": "Denials per minute by workflow: compare with Agent executions to tell more work from a narrower policy. Click a series for the exporter's recent denials of that workflow.",
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
              },
              "links": drill.links($._config, 'This workflow', [['workflow', '=', '${__field.labels.workflow}']], 'workflow=${__field.labels.workflow:percentencode}')
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
              "expr": ("sum by (workflow) (rate(permission_denials_total{%(dashboardSelector)s, workflow=~\"$workflow\", tool=~\"$tool\"}[$__rate_interval])) * 60" % $._config),
              "legendFormat": "{{workflow}}",
              "range": true,
              "instant": false,
              "refId": "A",
              "exemplar": true
            }
          ]
        },
        {
          "id": 10,
          "type": "timeseries",
          "title": "Revealed only by the execution record, by workflow",
          "description": "Share of each workflow's denials with reason=\"unknown\": counted when the execution record (completed line or SDK result) arrived because no mid-stream event had been logged for them. With the real Agent SDK a large share is normal: PreToolUse hook denials, canUseTool callbacks that deny and path-scoped deny rules (e.g. Read(./.env)) never produce a permission_denied frame, so the executor logs no mid-stream event and they are known only from the record (docs/formats.md). A rise beyond that baseline means mid-stream events are being lost (an executor that does not log its denials as they happen, a broken correlation key): alerts then wait for executions to end, and DenialsExporterUnknownDenialsRising fires.",
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
              },
              "links": drill.links($._config, 'Record-only denials of this workflow', [['workflow', '=', '${__field.labels.workflow}'], ['reason', '=', 'unknown']], 'workflow=${__field.labels.workflow:percentencode}&reason=unknown')
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
              "expr": ("(sum by (workflow) (rate(permission_denials_total{%(dashboardSelector)s, workflow=~\"$workflow\", tool=~\"$tool\", reason=\"unknown\"}[$__rate_interval])) or sum by (workflow) (rate(permission_denials_total{%(dashboardSelector)s, workflow=~\"$workflow\", tool=~\"$tool\"}[$__rate_interval])) * 0) / sum by (workflow) (rate(permission_denials_total{%(dashboardSelector)s, workflow=~\"$workflow\", tool=~\"$tool\"}[$__rate_interval]))" % $._config),
              "legendFormat": "{{workflow}}",
              "range": true,
              "instant": false,
              "refId": "A",
              "exemplar": true
            }
          ]
        },
        {
          "id": 11,
          "type": "bargauge",
          "title": "Top tools",
          "description": "The 10 tools denied most often in the selected time range.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 0,
            "y": 22,
            "w": 8,
            "h": 10
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
              "expr": ("topk(10, sum by (tool) (increase(permission_denials_total{%(dashboardSelector)s, workflow=~\"$workflow\", tool=~\"$tool\"}[$__range])))" % $._config),
              "legendFormat": "{{tool}}",
              "range": false,
              "instant": true,
              "refId": "A"
            }
          ]
        },
        {
          "id": 12,
          "type": "table",
          "title": "Top denials by workflow, tool and reason",
          "description": "The 20 most frequent (workflow, tool, reason) combinations in the selected time range. Click a row for the exporter's recent denials of that workflow, tool and reason (execution ids, redacted commands), via the Exporter URL variable.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 8,
            "y": 22,
            "w": 16,
            "h": 10
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
              },
              "links": drill.links($._config, 'This workflow, tool and reason', [['workflow', '=', '${__data.fields.workflow}'], ['tool', '=', '${__data.fields.tool}'], ['reason', '=', '${__data.fields.reason}']], 'workflow=${__data.fields.workflow:percentencode}&tool=${__data.fields.tool:percentencode}&reason=${__data.fields.reason:percentencode}')
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
                "displayName": "Denials",
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
              "expr": ("topk(20, sum by (workflow, tool, reason) (increase(permission_denials_total{%(dashboardSelector)s, workflow=~\"$workflow\", tool=~\"$tool\"}[$__range])))" % $._config),
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
                  "Value": "Denials"
                },
                "indexByName": {
                  "workflow": 0,
                  "tool": 1,
                  "reason": 2,
                  "Value": 3
                }
              }
            }
          ]
        },
        {
          "id": 13,
          "type": "heatmap",
          "title": "Denials per execution",
          "description": "How many denials each finished execution recorded (agent_execution_denials buckets), per rate interval. Executions piling up in the high buckets mean the policy is too narrow for the task. The tool filter does not apply.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 0,
            "y": 32,
            "w": 12,
            "h": 9
          },
          "fieldConfig": {
            "defaults": {
              "unit": "short",
              "custom": {
                "hideFrom": {
                  "legend": false,
                  "tooltip": false,
                  "viz": false
                },
                "scaleDistribution": {
                  "type": "linear"
                }
              }
            },
            "overrides": []
          },
          "options": {
            "calculate": false,
            "cellGap": 1,
            "cellValues": {
              "unit": "short"
            },
            "color": {
              "mode": "scheme",
              "scheme": "Oranges",
              "scale": "exponential",
              "exponent": 0.5,
              "steps": 64,
              "fill": "dark-orange",
              "reverse": false
            },
            "exemplars": {
              "color": "rgba(255,0,255,0.7)"
            },
            "filterValues": {
              "le": 1e-09
            },
            "legend": {
              "show": true
            },
            "rowsFrame": {
              "layout": "auto",
              "value": "Executions"
            },
            "tooltip": {
              "mode": "single",
              "showColorScale": false,
              "yHistogram": false
            },
            "yAxis": {
              "axisPlacement": "left",
              "reverse": false,
              "unit": "short",
              "axisLabel": "denials per execution"
            }
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("sum by (le) (increase(agent_execution_denials_bucket{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__rate_interval]))" % $._config),
              "legendFormat": "{{le}}",
              "range": true,
              "instant": false,
              "refId": "A",
              "format": "heatmap"
            }
          ]
        },
        {
          "id": 14,
          "type": "timeseries",
          "title": "Denials per execution percentiles",
          "description": "p50, p90 and p99 of the denials recorded per execution (histogram_quantile over agent_execution_denials). DenialsExporterTooManyDenialsPerExecution watches the hourly mean. The tool filter does not apply.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 12,
            "y": 32,
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
              "expr": ("histogram_quantile(0.5, sum by (le) (rate(agent_execution_denials_bucket{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__rate_interval])))" % $._config),
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
              "expr": ("histogram_quantile(0.9, sum by (le) (rate(agent_execution_denials_bucket{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__rate_interval])))" % $._config),
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
              "expr": ("histogram_quantile(0.99, sum by (le) (rate(agent_execution_denials_bucket{%(dashboardSelector)s, workflow=~\"$workflow\"}[$__rate_interval])))" % $._config),
              "legendFormat": "p99",
              "range": true,
              "instant": false,
              "refId": "C"
            }
          ]
        },
        {
          "id": 15,
          "type": "timeseries",
          "title": "Dangerous denials",
          "description": "Denials per minute whose attempt falls in a dangerous risk class (every class but none and unknown, docs/risk.md), by workflow and class, whatever layer denied them: what DenialsExporterDangerousDenial fires on. The series links open their audit records (the attempts) in Loki. A workflow without any shows a flat line labelled none.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 0,
            "y": 41,
            "w": 12,
            "h": 9
          },
          "fieldConfig": {
            "defaults": {
              "links": drill.links($._config, 'These dangerous denials', [['workflow', '=', '${__field.labels.workflow}'], ['risk', '=', '${__field.labels.risk}']], 'workflow=${__field.labels.workflow:percentencode}&risk=${__field.labels.risk:percentencode}'),
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
              "expr": ("sum by (workflow, risk) (rate(permission_denial_risks_total{%(dashboardSelector)s, workflow=~\"$workflow\", tool=~\"$tool\", risk!~\"%(notDangerousRisksRegex)s\"}[$__rate_interval])) * 60 or on (workflow) label_replace(sum by (workflow) (rate(permission_denial_risks_total{%(dashboardSelector)s, workflow=~\"$workflow\", tool=~\"$tool\"}[$__rate_interval])) * 0, \"risk\", \"none\", \"\", \"\")" % $._config),
              "legendFormat": "{{workflow}} {{risk}}",
              "range": true,
              "instant": false,
              "refId": "A",
              "exemplar": true
            }
          ]
        },
        {
          "id": 16,
          "type": "table",
          "title": "Firing alerts",
          "description": "DenialsExporter alerts firing now, with their labels. Each alert's runbook is in docs/runbook.md.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 12,
            "y": 41,
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
            "sortBy": []
          },
          "targets": [
            {
              "datasource": {
                "type": "prometheus",
                "uid": "${prometheus_datasource}"
              },
              "editorMode": "code",
              "expr": ("ALERTS{alertname=~\"DenialsExporter.*\", alertstate=\"firing\", %(alertsSelector)s}" % $._config),
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
                  "Time": true,
                  "Value": true,
                  "__name__": true,
                  "alertstate": true
                }
              }
            }
          ]
        },
        {
          "id": 17,
          "type": "timeseries",
          "title": "What they tried",
          "description": "Denials per minute by what was attempted (the risk class of the command, path, URL or content, docs/risk.md) and workflow, whatever layer denied them: the question behind DenialsExporterDangerousDenial, which fires on every class but none and unknown. A mid-stream denial whose input comes with its execution's record is classified then. Click a series for the exporter's recent denials of that class.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 0,
            "y": 50,
            "w": 24,
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
                "drawStyle": "bars",
                "lineInterpolation": "linear",
                "lineWidth": 1,
                "fillOpacity": 60,
                "gradientMode": "none",
                "showPoints": "never",
                "spanNulls": false,
                "axisSoftMin": 0,
                "stacking": {
                  "mode": "normal",
                  "group": "A"
                }
              },
              "links": drill.links($._config, 'This class', [['workflow', '=', '${__field.labels.workflow}'], ['risk', '=', '${__field.labels.risk}']], 'risk=${__field.labels.risk:percentencode}&workflow=${__field.labels.workflow:percentencode}')
            },
            "overrides": []
          },
          "options": {
            "legend": {
              "displayMode": "table",
              "placement": "bottom",
              "showLegend": true,
              "calcs": [
                "sum",
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
              "expr": ("sum by (risk, workflow) (rate(permission_denial_risks_total{%(dashboardSelector)s, workflow=~\"$workflow\", tool=~\"$tool\"}[$__rate_interval])) * 60" % $._config),
              "legendFormat": "{{risk}} · {{workflow}}",
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
          "title": "Denied calls that ran anyway",
          "description": "Denied tool calls whose answer says they ran anyway (permission_denials_unenforced_total: a result that is no error, or a PostToolUse hook input, for the same tool use id), by workflow and tool, per interval: what DenialsExporterUnenforcedDenial pages on. Should stay at 0; a workflow without any shows a flat line labelled none. The series links open their denial_unenforced audit records in Loki.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 0,
            "y": 59,
            "w": 12,
            "h": 9
          },
          "fieldConfig": {
            "defaults": {
              "links": drill.links($._config, 'These unenforced denials', [['workflow', '=', '${__field.labels.workflow}'], ['tool', '=', '${__field.labels.tool}'], ['audit', '=', 'denial_unenforced']], 'workflow=${__field.labels.workflow:percentencode}&tool=${__field.labels.tool:percentencode}'),
              "unit": "short",
              "decimals": 0,
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
                "drawStyle": "bars",
                "lineInterpolation": "linear",
                "lineWidth": 1,
                "fillOpacity": 60,
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
                "sum",
                "max"
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
              "expr": ("sum by (workflow, tool) (increase(permission_denials_unenforced_total{%(dashboardSelector)s, workflow=~\"$workflow\", tool=~\"$tool\"}[$__rate_interval])) or on (workflow) label_replace(sum by (workflow) (increase(permission_denials_total{%(dashboardSelector)s, workflow=~\"$workflow\", tool=~\"$tool\"}[$__rate_interval])) * 0, \"tool\", \"none\", \"\", \"\")" % $._config),
              "legendFormat": "{{workflow}} {{tool}}",
              "range": true,
              "instant": false,
              "refId": "A",
              "exemplar": true
            }
          ]
        },
        {
          "id": 19,
          "type": "timeseries",
          "title": "Denial loops",
          "description": "Executions that kept at a denied tool (permission_denial_loops_total at the step the loop alert uses), by workflow, tool and pattern, per interval: repeated = consecutive denials of one tool (stuck against policy), varied = distinct inputs tried after its first denial (probing it). What DenialsExporterDenialLoop fires on. The series links open the tool's audit records in Loki.",
          "datasource": {
            "type": "prometheus",
            "uid": "${prometheus_datasource}"
          },
          "gridPos": {
            "x": 12,
            "y": 59,
            "w": 12,
            "h": 9
          },
          "fieldConfig": {
            "defaults": {
              "links": drill.links($._config, 'These denials', [['workflow', '=', '${__field.labels.workflow}'], ['tool', '=', '${__field.labels.tool}']], 'workflow=${__field.labels.workflow:percentencode}&tool=${__field.labels.tool:percentencode}'),
              "unit": "short",
              "decimals": 0,
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
                "drawStyle": "bars",
                "lineInterpolation": "linear",
                "lineWidth": 1,
                "fillOpacity": 60,
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
                "sum",
                "max"
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
              "expr": ("sum by (workflow, tool, pattern) (increase(permission_denial_loops_total{%(dashboardSelector)s, workflow=~\"$workflow\", tool=~\"$tool\", at=\"%(denialLoopStep)s\"}[$__rate_interval]))" % $._config),
              "legendFormat": "{{workflow}} {{tool}} {{pattern}}",
              "range": true,
              "instant": false,
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
            "definition": ("label_values(permission_denials_total{%(dashboardSelector)s}, workflow)" % $._config),
            "query": {
              "qryType": 1,
              "query": ("label_values(permission_denials_total{%(dashboardSelector)s}, workflow)" % $._config),
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
          },
          {
            "name": "tool",
            "label": "Tool",
            "description": "",
            "type": "query",
            "datasource": {
              "type": "prometheus",
              "uid": "${prometheus_datasource}"
            },
            "definition": ("label_values(permission_denials_total{%(dashboardSelector)s, workflow=~\"$workflow\"}, tool)" % $._config),
            "query": {
              "qryType": 1,
              "query": ("label_values(permission_denials_total{%(dashboardSelector)s, workflow=~\"$workflow\"}, tool)" % $._config),
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
          },
          {
            "name": "exporter",
            "label": "Exporter URL",
            "description": "Base URL of a denials-exporter as your browser reaches it (e.g. after kubectl port-forward pod/<executor> 10403), for the links to its recent denials (/api/v1/denials).",
            "type": "textbox",
            "query": $._config.exporterURL,
            "current": {
              "selected": false,
              "text": $._config.exporterURL,
              "value": $._config.exporterURL
            },
            "options": [
              {
                "selected": true,
                "text": $._config.exporterURL,
                "value": $._config.exporterURL
              }
            ],
            "hide": 0,
            "skipUrlSync": false
          }
        ]
      },
      "time": {
        "from": "now-6h",
        "to": "now"
      },
      "timepicker": {},
      "timezone": "",
      "title": "Permission denials",
      "uid": "denials-exporter-denials",
      "version": 1,
      "weekStart": ""
    },
  },
}
