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

    // Every alert's severity and `for`, as kube-prometheus does: critical pages, warning makes a
    // ticket, info only informs. Override one with e.g.
    //   alerts+: { DenialsExporterDangerousDenial+: { severity: 'critical' } }
    alerts: {
      DenialsExporterDenialSpike: { severity: 'warning', 'for': '5m' },
      // What an agent tried that a permission layer stopped: a warning at first sight. Make it
      // critical to page on it; a `for` makes it wait (it must stay under dangerousDenialWindow).
      DenialsExporterDangerousDenial: { severity: 'warning', 'for': '0m' },
      DenialsExporterUnknownDenialsRising: { severity: 'warning', 'for': '30m' },
      DenialsExporterTooManyDenialsPerExecution: { severity: 'warning', 'for': '15m' },
      DenialsExporterSpendSpike: { severity: 'critical', 'for': '10m' },
      DenialsExporterUnattributedSpend: { severity: 'warning', 'for': '30m' },
      // Like kube-prometheus' TargetDown: a warning, for a share of a job's targets, after 10m.
      DenialsExporterDown: { severity: 'warning', 'for': '10m' },
      DenialsExporterAbsent: { severity: 'warning', 'for': '15m' },
      DenialsExporterNotReading: { severity: 'critical', 'for': '5m' },
      DenialsExporterMalformedLines: { severity: 'warning', 'for': '15m' },
      DenialsExporterLabelOverflow: { severity: 'warning', 'for': '0m' },
      DenialsExporterStateFileStale: { severity: 'warning', 'for': '5m' },
      DenialsExporterFileErrors: { severity: 'warning', 'for': '15m' },
      DenialsExporterExecutionsEvicted: { severity: 'info', 'for': '0m' },
      // A denied tool call that ran anyway: the permission layer did not hold. Pages.
      DenialsExporterUnenforcedDenial: { severity: 'critical', 'for': '0m' },
      // An agent keeps trying a tool that policy denies (stuck, or probing the policy).
      DenialsExporterDenialLoop: { severity: 'warning', 'for': '0m' },
      // Auto mode's classifier gives no verdict and its calls are denied for safety.
      DenialsExporterClassifierFailingClosed: { severity: 'warning', 'for': '5m' },
    },
    // DenialsExporterDown: the share of a job's targets (per namespace), in percent, that must be
    // down for it to fire.
    downTargetsPercent: 10,

    // "Dangerous" is one thing on the alerts and the dashboards: a denial whose attempt falls in a
    // risk class (docs/risk.md) other than these.
    notDangerousRisks: ['none', 'unknown'],
    // How long one dangerous denial keeps DenialsExporterDangerousDenial's expression true (the
    // alert's `for` must be shorter), and the range its description speaks of.
    dangerousDenialWindow: '5m',

    // DenialsExporterDenialLoop: the step of permission_denial_loops_total that counts as a loop:
    // 3, 5 or 10 consecutive denials of one tool in one execution (or distinct inputs tried after
    // its first denial).
    denialLoopStep: 5,
    // DenialsExporterClassifierFailingClosed: denials of a workflow in 10 minutes because auto
    // mode's classifier gave no verdict (reason classifierUnavailable).
    classifierUnavailablePer10m: 3,

    // Where the runbook (docs/runbook.md) is published for your team: every alert's runbook_url is
    // this plus '#' and the alert name in lower case (its section's anchor). The default is a
    // PLACEHOLDER on a reserved, unresolvable domain: set it, e.g. to
    // 'https://github.com/<your-org>/<your-fork>/blob/main/docs/runbook.md'.
    runbookURLBase: 'https://runbook-url-not-set.invalid/docs/runbook.md',
    // The whole pattern, for a runbook laid out differently; %s is the alert name in lower case.
    runbookURLPattern: self.runbookURLBase + '#%s',

    // Dashboards: their tags (and the tag their cross-links look for), and the drill-down.
    dashboardTags: ['denials-exporter'],
    // The Loki data source the drill-down links query by default (a `loki_datasource` variable lets users pick
    // another), and the label set that finds the exporter's stdout in it.
    lokiDatasourceUID: 'loki',
    auditStreamSelector: '{container="denials-exporter"}',
    // Where a browser reaches one exporter directly (kubectl port-forward): the fallback link.
    exporterURL: 'http://localhost:10403',

    // Derived; not meant to be overridden.
    notDangerousRisksRegex: std.join('|', self.notDangerousRisks),
    // Prepended to every `by (...)`/`on (...)` list of the rules.
    clusterBy: if self.showMultiCluster then self.clusterLabel + ', ' else '',
    // What every dashboard selector carries (the ALERTS panels leave job, pod and instance out:
    // alerts carry no pod or instance, and DenialsExporterAbsent no job; dashboards/.lint says so).
    dashboardSelector: '%(clusterLabel)s=~"$cluster", job=~"$job", namespace=~"$namespace", pod=~"$pod", instance=~"$instance"' % self,
    // `up` is the one series the dashboards read that other jobs have too: the job selector first,
    // then the variable (which the linter's target-job-rule looks for).
    upSelector: '%(jobSelector)s, %(dashboardSelector)s' % self,
    alertsSelector: '%(clusterLabel)s=~"$cluster", namespace=~"$namespace"' % self,
  },
}
