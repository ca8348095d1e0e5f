// The recording rules of the mixin, parameterised by _config (config.libsonnet). Why each rule is written as
// it is (thresholds, windows, the `or ... * 0` and `unless` branches) is told beside it in
// deploy/prometheus/denials-exporter.rules.yml, which these render exactly
// (tests/deploy/mixin_check.py), and in docs/runbook.md.
{
  prometheusRules+:: {
    groups+: [
      {
        name: "denials-exporter.rules",
        rules: [
          {
            record: "workflow_tool_reason:permission_denials:rate5m",
            expr: |||
              sum by (%(clusterBy)snamespace, job, workflow, tool, reason) (rate(permission_denials_total{%(jobSelector)s}[5m]))
            ||| % $._config,
          },
          {
            record: "workflow:permission_denials:rate5m",
            expr: |||
              sum by (%(clusterBy)snamespace, job, workflow) (workflow_tool_reason:permission_denials:rate5m)
            ||| % $._config,
          },
          {
            record: "workflow:permission_denials:rate10m",
            expr: |||
              sum by (%(clusterBy)snamespace, job, workflow) (rate(permission_denials_total{%(jobSelector)s}[10m]))
            ||| % $._config,
          },
          {
            record: "workflow_outcome:agent_executions:rate5m",
            expr: |||
              sum by (%(clusterBy)snamespace, job, workflow, outcome) (rate(agent_executions_total{%(jobSelector)s}[5m]))
            ||| % $._config,
          },
          {
            record: "workflow:agent_execution_cost_usd_sum:rate5m",
            expr: |||
              sum by (%(clusterBy)snamespace, job, workflow) (rate(agent_execution_cost_usd_sum{%(jobSelector)s}[5m]))
            ||| % $._config,
          },
          {
            record: "workflow_kind:agent_tokens:rate5m",
            expr: |||
              sum by (%(clusterBy)snamespace, job, workflow, kind) (rate(agent_tokens_total{%(jobSelector)s}[5m]))
            ||| % $._config,
          },
          {
            record: "workflow:agent_cost_usd:increase1h",
            expr: |||
              sum by (%(clusterBy)snamespace, job, workflow) (increase(agent_cost_usd_total{%(jobSelector)s}[1h]))
            ||| % $._config,
          },
          {
            record: "workflow:agent_execution_denials_count:increase1h",
            expr: |||
              sum by (%(clusterBy)snamespace, job, workflow) (increase(agent_execution_denials_count{%(jobSelector)s}[1h]))
            ||| % $._config,
          },
          {
            record: "workflow:agent_execution_denials:mean1h",
            expr: |||
              sum by (%(clusterBy)snamespace, job, workflow) (increase(agent_execution_denials_sum{%(jobSelector)s}[1h]))
                /
              workflow:agent_execution_denials_count:increase1h
            ||| % $._config,
          },
        ],
      },
    ],
  },
}
