// denials-exporter's monitoring mixin: recording rules, alerts and Grafana dashboards for the
// permission denials, spend and health of Claude agent executors, from one `_config`
// (config.libsonnet). Consumed the way kube-prometheus consumes mixins:
//
//   local mixin = (import 'mixin.libsonnet') + { _config+:: { jobSelector: 'job="agents"' } };
//   { 'rules.yaml': std.manifestYamlDoc(mixin.prometheusRules + mixin.prometheusAlerts) }
//   + { [name]: mixin.grafanaDashboards[name] for name in std.objectFields(mixin.grafanaDashboards) }
//
// mixin/render.py renders it (python `_jsonnet`, PyPI `jsonnet`); with the defaults the output
// equals deploy/prometheus/denials-exporter.rules.yml and dashboards/*.json.
(import 'config.libsonnet')
+ (import 'rules/rules.libsonnet')
+ (import 'alerts/alerts.libsonnet')
+ (import 'dashboards/permission-denials.libsonnet')
+ (import 'dashboards/agent-executions.libsonnet')
+ (import 'dashboards/exporter-health.libsonnet')
