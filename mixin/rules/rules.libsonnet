// The recording rules of the mixin, parameterised by _config (config.libsonnet): each feeds an alert
// (the dashboards query the raw series, because they filter by pod and instance, which these
// aggregate away). Why each rule is written as
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
            record: "workflow:permission_denials:rate10m",
            expr: |||
              sum by (%(clusterBy)snamespace, job, workflow) (rate(permission_denials_total{%(jobSelector)s}[10m]))
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
