// The alerts of the mixin, parameterised by _config (config.libsonnet): every alert's severity and
// `for` come from _config.alerts. Why each rule is written as
// it is (thresholds, windows, the `or ... * 0` and `unless` branches) is told beside it in
// deploy/prometheus/denials-exporter.rules.yml, which these render exactly
// (tests/deploy/mixin_check.py), and in docs/runbook.md.
local durationSeconds(d) =
  local n = std.length(d);
  std.parseInt(d[:n - 1]) * { s: 1, m: 60, h: 3600, d: 86400 }[d[n - 1]];

{
  prometheusAlerts+:: {
    groups+: [
      {
        name: "denials-exporter.denials",
        rules: [
          {
            alert: "DenialsExporterDenialSpike",
            expr: |||
              (
                workflow:permission_denials:rate10m * 600 >= 10
                and
                workflow:permission_denials:rate10m
                  > 3 * avg_over_time(workflow:permission_denials:rate10m[1d] offset 1h)
              )
              or
              (
                workflow:permission_denials:rate10m * 600 >= 30
                unless
                avg_over_time(workflow:permission_denials:rate10m[1d] offset 1h)
              )
            |||,
            'for': $._config.alerts.DenialsExporterDenialSpike['for'],
            labels: {severity: $._config.alerts.DenialsExporterDenialSpike.severity},
            annotations: {
              summary: "Permission denials of a workflow spiked far above their usual rate.",
              description: "Workflow {{ $labels.workflow }}{{ with $labels.namespace }} in namespace {{ . }}{{ end }} had {{ $value | humanize }} permission denials in the last 10 minutes, more than 3 times its average of the previous day (or at least 30 for a workflow first seen less than an hour ago).",
              runbook_url: $._config.runbookURLPattern % std.asciiLower("DenialsExporterDenialSpike"),
            },
          },
          {
            assert durationSeconds($._config.alerts.DenialsExporterDangerousDenial['for']) < durationSeconds($._config.dangerousDenialWindow) :
                   "_config.alerts.DenialsExporterDangerousDenial's `for` must be shorter than dangerousDenialWindow: a denial keeps the alert's expression true for the window only",
            alert: "DenialsExporterDangerousDenial",
            expr: |||
              sum by (%(clusterBy)snamespace, job, workflow, tool, risk) (
                increase(permission_denial_risks_total{%(jobSelector)s, risk!~"%(notDangerousRisksRegex)s"}[%(dangerousDenialWindow)s])
              ) > 0
              or
              (
                sum by (%(clusterBy)snamespace, job, workflow, tool, risk) (
                  permission_denial_risks_total{%(jobSelector)s, risk!~"%(notDangerousRisksRegex)s"}
                )
                unless
                sum by (%(clusterBy)snamespace, job, workflow, tool, risk) (
                  permission_denial_risks_total{%(jobSelector)s, risk!~"%(notDangerousRisksRegex)s"} offset %(dangerousDenialWindow)s
                )
              )
            ||| % $._config,
            'for': $._config.alerts.DenialsExporterDangerousDenial['for'],
            labels: {severity: $._config.alerts.DenialsExporterDangerousDenial.severity},
            annotations: {
              summary: "An agent tried something dangerous and a permission layer denied it.",
              description: "{{ $value | humanize }} denied {{ $labels.tool }} call(s) of workflow {{ $labels.workflow }}{{ with $labels.namespace }} in namespace {{ . }}{{ end }} attempted {{ $labels.risk }} in the last %s, whatever layer denied them. Read the audit log for the attempt and the execution that made it." % $._config.dangerousDenialWindow,
              runbook_url: $._config.runbookURLPattern % std.asciiLower("DenialsExporterDangerousDenial"),
            },
          },
          {
            alert: "DenialsExporterUnknownDenialsRising",
            expr: |||
              (
                sum by (%(clusterBy)snamespace, job, workflow) (increase(permission_denials_total{%(jobSelector)s, reason="unknown"}[1h]))
                  /
                sum by (%(clusterBy)snamespace, job, workflow) (increase(permission_denials_total{%(jobSelector)s}[1h]))
              )
              -
              (
                (
                  sum by (%(clusterBy)snamespace, job, workflow) (increase(permission_denials_total{%(jobSelector)s, reason="unknown"}[1d] offset 1h))
                  or
                  sum by (%(clusterBy)snamespace, job, workflow) (increase(permission_denials_total{%(jobSelector)s}[1d] offset 1h)) * 0
                )
                  /
                sum by (%(clusterBy)snamespace, job, workflow) (increase(permission_denials_total{%(jobSelector)s}[1d] offset 1h))
              )
                > 0.25
              and on (%(clusterBy)snamespace, job, workflow)
              sum by (%(clusterBy)snamespace, job, workflow) (increase(permission_denials_total{%(jobSelector)s}[1h])) >= 20
            ||| % $._config,
            'for': $._config.alerts.DenialsExporterUnknownDenialsRising['for'],
            labels: {severity: $._config.alerts.DenialsExporterUnknownDenialsRising.severity},
            annotations: {
              summary: "A rising share of a workflow's denials is known only from execution records.",
              description: "The share of denials of workflow {{ $labels.workflow }}{{ with $labels.namespace }} in namespace {{ . }}{{ end }} that only the execution record revealed (reason \"unknown\") rose by {{ $value | humanizePercentage }} (points of share) over the day before: the executor does not log these denials as they happen, so they are counted late and without a reason, and the dangerous-denial alert sees them only when their executions end.",
              runbook_url: $._config.runbookURLPattern % std.asciiLower("DenialsExporterUnknownDenialsRising"),
            },
          },
          {
            alert: "DenialsExporterTooManyDenialsPerExecution",
            expr: |||
              workflow:agent_execution_denials:mean1h > 5
              and
              workflow:agent_execution_denials_count:increase1h >= 5
            |||,
            'for': $._config.alerts.DenialsExporterTooManyDenialsPerExecution['for'],
            labels: {severity: $._config.alerts.DenialsExporterTooManyDenialsPerExecution.severity},
            annotations: {
              summary: "Executions of a workflow record many permission denials each.",
              description: "Executions of workflow {{ $labels.workflow }}{{ with $labels.namespace }} in namespace {{ . }}{{ end }} recorded {{ $value | humanize }} permission denials each on average over the last hour (threshold 5, at least 5 executions).",
              runbook_url: $._config.runbookURLPattern % std.asciiLower("DenialsExporterTooManyDenialsPerExecution"),
            },
          },
        ],
      },
      {
        name: "denials-exporter.enforcement",
        rules: [
          {
            alert: "DenialsExporterUnenforcedDenial",
            expr: |||
              sum by (%(clusterBy)snamespace, job, workflow, tool) (
                increase(permission_denials_unenforced_total{%(jobSelector)s}[15m])
              ) > 0
              or
              (
                sum by (%(clusterBy)snamespace, job, workflow, tool) (permission_denials_unenforced_total{%(jobSelector)s}) > 0
                unless
                sum by (%(clusterBy)snamespace, job, workflow, tool) (permission_denials_unenforced_total{%(jobSelector)s} offset 15m)
              )
            ||| % $._config,
            'for': $._config.alerts.DenialsExporterUnenforcedDenial['for'],
            labels: {severity: $._config.alerts.DenialsExporterUnenforcedDenial.severity},
            annotations: {
              summary: "A permission layer denied a tool call and the call ran anyway.",
              description: "{{ $value | humanize }} denied {{ $labels.tool }} call(s) of workflow {{ $labels.workflow }}{{ with $labels.namespace }} in namespace {{ . }}{{ end }} ran anyway in the last 15m: the same tool use id has a result that is no error, or a PostToolUse hook input. The audit log's denial_unenforced lines name the executions and tool use ids.",
              runbook_url: $._config.runbookURLPattern % std.asciiLower("DenialsExporterUnenforcedDenial"),
            },
          },
          {
            alert: "DenialsExporterDenialLoop",
            expr: |||
              sum by (%(clusterBy)snamespace, job, workflow, tool, pattern) (
                increase(permission_denial_loops_total{%(jobSelector)s, at="%(denialLoopStep)s"}[15m])
              ) > 0
              or
              (
                sum by (%(clusterBy)snamespace, job, workflow, tool, pattern) (permission_denial_loops_total{%(jobSelector)s, at="%(denialLoopStep)s"}) > 0
                unless
                sum by (%(clusterBy)snamespace, job, workflow, tool, pattern) (permission_denial_loops_total{%(jobSelector)s, at="%(denialLoopStep)s"} offset 15m)
              )
            ||| % $._config,
            'for': $._config.alerts.DenialsExporterDenialLoop['for'],
            labels: {severity: $._config.alerts.DenialsExporterDenialLoop.severity},
            annotations: {
              summary: "An agent keeps trying a tool that policy denies.",
              description: "{{ $value | humanize }} execution(s) of workflow {{ $labels.workflow }}{{ with $labels.namespace }} in namespace {{ . }}{{ end }} reached %(denialLoopStep)s {{ if eq $labels.pattern \"varied\" }}distinct inputs tried with {{ $labels.tool }} after its first denial{{ else }}consecutive denials of {{ $labels.tool }}{{ end }} in the last 15m." % $._config,
              runbook_url: $._config.runbookURLPattern % std.asciiLower("DenialsExporterDenialLoop"),
            },
          },
          {
            alert: "DenialsExporterClassifierFailingClosed",
            expr: |||
              sum by (%(clusterBy)snamespace, job, workflow) (
                increase(permission_denials_total{%(jobSelector)s, reason="classifierUnavailable"}[10m])
              ) >= %(classifierUnavailablePer10m)s
              or
              (
                sum by (%(clusterBy)snamespace, job, workflow) (permission_denials_total{%(jobSelector)s, reason="classifierUnavailable"}) >= %(classifierUnavailablePer10m)s
                unless
                sum by (%(clusterBy)snamespace, job, workflow) (permission_denials_total{%(jobSelector)s, reason="classifierUnavailable"} offset 10m)
              )
            ||| % $._config,
            'for': $._config.alerts.DenialsExporterClassifierFailingClosed['for'],
            labels: {severity: $._config.alerts.DenialsExporterClassifierFailingClosed.severity},
            annotations: {
              summary: "Auto mode's classifier cannot decide: the gate is failing closed.",
              description: "{{ $value | humanize }} tool calls of workflow {{ $labels.workflow }}{{ with $labels.namespace }} in namespace {{ . }}{{ end }} were denied in the last 10m because auto mode's classifier gave no verdict (unavailable, unreadable, transcript too long): not a policy decision. Agents are blocked from actions policy would allow.",
              runbook_url: $._config.runbookURLPattern % std.asciiLower("DenialsExporterClassifierFailingClosed"),
            },
          },
        ],
      },
      {
        name: "denials-exporter.spend",
        rules: [
          {
            alert: "DenialsExporterSpendSpike",
            expr: |||
              sum by (%(clusterBy)snamespace, job, workflow) (increase(agent_cost_usd_total{%(jobSelector)s}[1h])) > %(spendBudgetUSDPerHour)s
            ||| % $._config,
            'for': $._config.alerts.DenialsExporterSpendSpike['for'],
            labels: {severity: $._config.alerts.DenialsExporterSpendSpike.severity},
            annotations: {
              summary: "A workflow is spending more than its hourly budget on model usage.",
              description: "Workflow {{ $labels.workflow }}{{ with $labels.namespace }} in namespace {{ . }}{{ end }} spent {{ $value | humanize }} USD on model usage in the last hour, above the budget of %(spendBudgetUSDPerHour)s USD per hour, and has stayed above it for %(for)s." % ($._config { 'for': $._config.alerts.DenialsExporterSpendSpike['for'] }),
              runbook_url: $._config.runbookURLPattern % std.asciiLower("DenialsExporterSpendSpike"),
            },
          },
          {
            alert: "DenialsExporterUnattributedSpend",
            expr: |||
              (
                label_replace(
                  sum by (%(clusterBy)snamespace, job, workflow) (rate(agent_cost_usd_total{%(jobSelector)s, model="unknown"}[1h]))
                    /
                  sum by (%(clusterBy)snamespace, job, workflow) (rate(agent_cost_usd_total{%(jobSelector)s}[1h]))
                    > 0.1,
                  "usage", "cost", "", ""
                )
                or
                label_replace(
                  sum by (%(clusterBy)snamespace, job, workflow) (rate(agent_tokens_by_model_total{%(jobSelector)s, model="unknown"}[1h]))
                    /
                  sum by (%(clusterBy)snamespace, job, workflow) (rate(agent_tokens_by_model_total{%(jobSelector)s}[1h]))
                    > 0.1,
                  "usage", "tokens", "", ""
                )
              )
              and on (%(clusterBy)snamespace, job, workflow)
              sum by (%(clusterBy)snamespace, job, workflow) (increase(agent_executions_total{%(jobSelector)s}[1h])) >= 5
            ||| % $._config,
            'for': $._config.alerts.DenialsExporterUnattributedSpend['for'],
            labels: {severity: $._config.alerts.DenialsExporterUnattributedSpend.severity},
            annotations: {
              summary: "A share of a workflow's model usage cannot be attributed to a model.",
              description: "{{ $value | humanizePercentage }} of the {{ $labels.usage }} of workflow {{ $labels.workflow }}{{ with $labels.namespace }} in namespace {{ . }}{{ end }} in the last hour is counted under model \"unknown\": its execution records carry no modelUsage, so spend by model is incomplete and token counts may be under-counted.",
              runbook_url: $._config.runbookURLPattern % std.asciiLower("DenialsExporterUnattributedSpend"),
            },
          },
        ],
      },
      {
        name: "denials-exporter.exporter",
        rules: [
          {
            alert: "DenialsExporterDown",
            expr: |||
              100 * (
                count by (%(clusterBy)snamespace, job) (up{%(jobSelector)s} == 0)
                  /
                count by (%(clusterBy)snamespace, job) (up{%(jobSelector)s})
              ) > %(downTargetsPercent)s
            ||| % $._config,
            'for': $._config.alerts.DenialsExporterDown['for'],
            labels: {severity: $._config.alerts.DenialsExporterDown.severity},
            annotations: {
              summary: "Prometheus cannot scrape a share of the denials-exporters of a job; their denials go unseen.",
              description: "{{ $value | humanize }}%% of the denials-exporter targets of job {{ $labels.job }}{{ with $labels.namespace }} in namespace {{ . }}{{ end }} are down (more than %(downTargetsPercent)s%% for %(for)s)." % ($._config { 'for': $._config.alerts.DenialsExporterDown['for'] }),
              runbook_url: $._config.runbookURLPattern % std.asciiLower("DenialsExporterDown"),
            },
          },
          {
            alert: "DenialsExporterAbsent",
            expr: |||
              absent(up{%(jobSelector)s})
            ||| % $._config,
            'for': $._config.alerts.DenialsExporterAbsent['for'],
            labels: {severity: $._config.alerts.DenialsExporterAbsent.severity},
            annotations: {
              summary: "Prometheus has no denials-exporter target at all.",
              description: "No scrape target whose job matches .*denials-exporter.* has existed{{ with $externalLabels.cluster }} in cluster {{ . }}{{ end }} for %s: the PodMonitor or scrape configuration is missing, or no exporter is deployed." % $._config.alerts.DenialsExporterAbsent['for'],
              runbook_url: $._config.runbookURLPattern % std.asciiLower("DenialsExporterAbsent"),
            },
          },
          {
            alert: "DenialsExporterNotReading",
            expr: |||
              max by (%(clusterBy)snamespace, job, instance) (delta(denials_exporter_file_lag_bytes{%(jobSelector)s}[15m])) > 0
              and on (%(clusterBy)snamespace, job, instance)
              sum by (%(clusterBy)snamespace, job, instance) (rate(denials_exporter_read_bytes_total{%(jobSelector)s}[15m])) == 0
            ||| % $._config,
            'for': $._config.alerts.DenialsExporterNotReading['for'],
            labels: {severity: $._config.alerts.DenialsExporterNotReading.severity},
            annotations: {
              summary: "A denials-exporter stopped reading logs that keep growing.",
              description: "Exporter {{ $labels.instance }}{{ with $labels.namespace }} in namespace {{ . }}{{ end }} has read no bytes for 15 minutes while the unread part of its logs grew by {{ $value | humanize1024 }}B.",
              runbook_url: $._config.runbookURLPattern % std.asciiLower("DenialsExporterNotReading"),
            },
          },
          {
            alert: "DenialsExporterMalformedLines",
            expr: |||
              sum by (%(clusterBy)snamespace, job, instance) (
                increase(denials_exporter_lines_total{%(jobSelector)s, outcome=~"malformed|oversized|non_utf8"}[15m])
              ) >= 10
              and
              sum by (%(clusterBy)snamespace, job, instance) (
                rate(denials_exporter_lines_total{%(jobSelector)s, outcome=~"malformed|oversized|non_utf8"}[15m])
              )
                /
              sum by (%(clusterBy)snamespace, job, instance) (rate(denials_exporter_lines_total{%(jobSelector)s}[15m]))
                > 0.01
            ||| % $._config,
            'for': $._config.alerts.DenialsExporterMalformedLines['for'],
            labels: {severity: $._config.alerts.DenialsExporterMalformedLines.severity},
            annotations: {
              summary: "A denials-exporter reads many lines it cannot decode.",
              description: "Exporter {{ $labels.instance }}{{ with $labels.namespace }} in namespace {{ . }}{{ end }} read {{ $value | humanize }} malformed, oversized or non-UTF-8 lines in the last 15 minutes, more than 1% of all lines read.",
              runbook_url: $._config.runbookURLPattern % std.asciiLower("DenialsExporterMalformedLines"),
            },
          },
          {
            alert: "DenialsExporterLabelOverflow",
            expr: |||
              sum by (%(clusterBy)snamespace, job, instance, label) (
                increase(denials_exporter_label_overflow_total{%(jobSelector)s}[15m])
              ) > 0
            ||| % $._config,
            'for': $._config.alerts.DenialsExporterLabelOverflow['for'],
            labels: {severity: $._config.alerts.DenialsExporterLabelOverflow.severity},
            annotations: {
              summary: "A denials-exporter label hit its cap; new values are counted as \"other\".",
              description: "Exporter {{ $labels.instance }}{{ with $labels.namespace }} in namespace {{ . }}{{ end }} mapped {{ $value | humanize }} {{ $labels.label }} value(s) to \"other\" in the last 15 minutes.",
              runbook_url: $._config.runbookURLPattern % std.asciiLower("DenialsExporterLabelOverflow"),
            },
          },
          {
            alert: "DenialsExporterStateFileStale",
            expr: |||
              time() - max by (%(clusterBy)snamespace, job, instance) (denials_exporter_state_last_write_timestamp_seconds{%(jobSelector)s} > 0)
                > 900
              or
              (
                sum by (%(clusterBy)snamespace, job, instance) (
                  increase(denials_exporter_state_writes_total{%(jobSelector)s, result="error"}[15m])
                ) > 0
                unless on (%(clusterBy)snamespace, job, instance)
                sum by (%(clusterBy)snamespace, job, instance) (
                  increase(denials_exporter_state_writes_total{%(jobSelector)s, result="ok"}[15m])
                ) > 0
              )
            ||| % $._config,
            'for': $._config.alerts.DenialsExporterStateFileStale['for'],
            labels: {severity: $._config.alerts.DenialsExporterStateFileStale.severity},
            annotations: {
              summary: "A denials-exporter has not written its state file for more than 15 minutes.",
              description: "Exporter {{ $labels.instance }}{{ with $labels.namespace }} in namespace {{ . }}{{ end }} has not written its state file successfully for more than 15 minutes, or every attempt since it started has failed; a restart now would re-read, and count again, everything it read since its last good write.",
              runbook_url: $._config.runbookURLPattern % std.asciiLower("DenialsExporterStateFileStale"),
            },
          },
          {
            alert: "DenialsExporterFileErrors",
            expr: |||
              sum by (%(clusterBy)snamespace, job, instance, error) (
                increase(denials_exporter_file_errors_total{%(jobSelector)s, error=~"open|read"}[5m])
              ) > 0
            ||| % $._config,
            'for': $._config.alerts.DenialsExporterFileErrors['for'],
            labels: {severity: $._config.alerts.DenialsExporterFileErrors.severity},
            annotations: {
              summary: "A denials-exporter keeps failing to open or read log files.",
              description: "Exporter {{ $labels.instance }}{{ with $labels.namespace }} in namespace {{ . }}{{ end }} had {{ $value | humanize }} \"{{ $labels.error }}\" errors in the last 5 minutes, and has kept having them for %s." % $._config.alerts.DenialsExporterFileErrors['for'],
              runbook_url: $._config.runbookURLPattern % std.asciiLower("DenialsExporterFileErrors"),
            },
          },
          {
            alert: "DenialsExporterExecutionsEvicted",
            expr: |||
              sum by (%(clusterBy)snamespace, job, instance) (
                increase(denials_exporter_executions_evicted_total{%(jobSelector)s, cause="cap"}[1h])
              ) > 0
            ||| % $._config,
            'for': $._config.alerts.DenialsExporterExecutionsEvicted['for'],
            labels: {severity: $._config.alerts.DenialsExporterExecutionsEvicted.severity},
            annotations: {
              summary: "A denials-exporter dropped reconciliation state because it hit its execution cap.",
              description: "Exporter {{ $labels.instance }}{{ with $labels.namespace }} in namespace {{ . }}{{ end }} evicted {{ $value | humanize }} open execution(s) at its cap in the last hour; their completion records can no longer be reconciled with what was counted mid-stream.",
              runbook_url: $._config.runbookURLPattern % std.asciiLower("DenialsExporterExecutionsEvicted"),
            },
          },
        ],
      },
    ],
  },
}
