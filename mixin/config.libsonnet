// The mixin's settings. Override any of them in your own jsonnet:
//
//   (import 'denials-exporter-mixin/mixin.libsonnet') + {
//     _config+:: { jobSelector: 'job="agents/denials-exporter"', spendBudgetUSDPerHour: 100 },
//   }
//
// With the defaults the mixin renders exactly the files this repository ships
// (deploy/prometheus/denials-exporter.rules.yml and dashboards/*.json; tests/deploy/mixin_check.py).
{
  _config+:: {
    // Selects the exporter's series in every rule, and the jobs the dashboards' `job` variable lists.
    // The default matches a static job `denials-exporter` (the PodMonitor's and
    // deploy/prometheus/scrape-kubernetes.yml's) and the Operator's `<namespace>/denials-exporter`.
    jobSelector: 'job=~".*denials-exporter.*"',

    // Several clusters in one Prometheus-compatible store (Thanos, Mimir): every rule then groups by
    // the cluster label too, and the dashboards show their `cluster` variable (hidden otherwise).
    showMultiCluster: false,
    clusterLabel: 'cluster',

    // DenialsExporterSpendSpike: USD a workflow may spend on model usage per hour.
    spendBudgetUSDPerHour: 25,

    // The dashboards' "Dangerous denials" panels: denials of these tools for these reasons, by the
    // layer that denied them. Add 'permissionPromptTool' if your canUseTool callback is a security
    // guard (docs/formats.md). The DenialsExporterDangerousDenial alert does not use them: it
    // wakes on what was attempted (the risk class), whatever the reason.
    dangerousTools: ['Bash'],
    dangerousReasons: ['hook', 'safetyCheck'],

    // Where the runbook (docs/runbook.md) is published for your team: every alert's runbook_url is
    // this plus '#' and the alert name in lower case (its section's anchor). The default is a
    // PLACEHOLDER on a reserved, unresolvable domain: set it, e.g. to
    // 'https://github.com/<your-org>/<your-fork>/blob/main/docs/runbook.md'.
    runbookURLBase: 'https://runbook-url-not-set.invalid/docs/runbook.md',
    // The whole pattern, for a runbook laid out differently; %s is the alert name in lower case.
    runbookURLPattern: self.runbookURLBase + '#%s',

    // Dashboards: their tags (and the tag their cross-links look for), and the drill-down.
    dashboardTags: ['denials-exporter'],
    // The Loki data source the drill-down links query by default (a `loki` variable lets users pick
    // another), and the label set that finds the exporter's stdout in it.
    lokiDatasourceUID: 'loki',
    auditStreamSelector: '{container="denials-exporter"}',
    // Where a browser reaches one exporter directly (kubectl port-forward): the fallback link.
    exporterURL: 'http://localhost:10403',

    // Derived; not meant to be overridden.
    dangerousToolsRegex: std.join('|', self.dangerousTools),
    dangerousReasonsRegex: std.join('|', self.dangerousReasons),
    // Prepended to every `by (...)`/`on (...)` list of the rules.
    clusterBy: if self.showMultiCluster then self.clusterLabel + ', ' else '',
    // What every dashboard selector carries (the ALERTS panels leave job and pod out: alerts carry
    // no pod, and DenialsExporterAbsent no job).
    dashboardSelector: '%(clusterLabel)s=~"$cluster", job=~"$job", namespace=~"$namespace", pod=~"$pod"' % self,
    alertsSelector: '%(clusterLabel)s=~"$cluster", namespace=~"$namespace"' % self,
  },
}
