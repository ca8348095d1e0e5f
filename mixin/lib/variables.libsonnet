// The variables every dashboard starts with, as grafana/dashboard-linter's rules want them: the
// Prometheus and Loki data sources (two, so named prometheus_datasource and loki_datasource), then
// cluster, job, namespace, pod and instance, each listing only what the exporter's own series carry
// (denials_exporter_build_info selected by the job selector), refreshed on time-range change.
// cluster, namespace and pod match series without the label when All is picked (outside
// Kubernetes there is none); job's and instance's All is ".+" (every series has both: every metric
// the dashboards read is the exporter's own, and `up` is selected by the job selector too).
local query(c, name, label, description, selector, allValue='.*', hide=0, labelName=name) = {
  name: name,
  label: label,
  description: description,
  type: 'query',
  datasource: { type: 'prometheus', uid: '${prometheus_datasource}' },
  definition: 'label_values(denials_exporter_build_info{%s}, %s)' % [selector, labelName],
  query: {
    qryType: 1,
    query: 'label_values(denials_exporter_build_info{%s}, %s)' % [selector, labelName],
    refId: 'PrometheusVariableQueryEditor-VariableQuery',
  },
  includeAll: true,
  multi: true,
  current: { selected: true, text: ['All'], value: ['$__all'] },
  hide: hide,
  options: [],
  refresh: 2,
  regex: '',
  skipUrlSync: false,
  sort: 1,
  allValue: allValue,
};

function(c) [
  {
    name: 'prometheus_datasource',
    label: 'Prometheus data source',
    description: 'Prometheus holding the exporters\' series.',
    type: 'datasource',
    query: 'prometheus',
    current: {},
    hide: 0,
    includeAll: false,
    multi: false,
    options: [],
    refresh: 1,
    regex: '',
    skipUrlSync: false,
  },
  {
    name: 'loki_datasource',
    label: 'Loki data source',
    description: 'Loki data source holding the exporter containers\' stdout: the drill-down links open their redacted audit records there.',
    type: 'datasource',
    query: 'loki',
    current: { selected: false, text: c.lokiDatasourceUID, value: c.lokiDatasourceUID },
    hide: 0,
    includeAll: false,
    multi: false,
    options: [],
    refresh: 1,
    regex: '',
    skipUrlSync: false,
  },
  query(c, 'cluster', 'Cluster',
        'Cluster the exporter runs in (the %s label of a multi-cluster store). Hidden unless the mixin is rendered with showMultiCluster.' % c.clusterLabel,
        c.jobSelector, hide=if c.showMultiCluster then 0 else 2, labelName=c.clusterLabel),
  query(c, 'job', 'Job',
        'Scrape job of the exporter: the jobs the job selector (%s) matches.' % c.jobSelector,
        '%s, %s=~"$cluster"' % [c.jobSelector, c.clusterLabel], allValue='.+'),
  query(c, 'namespace', 'Namespace',
        'Kubernetes namespace of the exporter (a target label added by the PodMonitor). Outside Kubernetes there is none, and All still matches every series.',
        '%s, %s=~"$cluster", job=~"$job"' % [c.jobSelector, c.clusterLabel]),
  query(c, 'pod', 'Pod',
        'Executor pod whose sidecar exported the series (a target label added by the PodMonitor). Outside Kubernetes there is none, and All still matches every series.',
        '%s, %s=~"$cluster", job=~"$job", namespace=~"$namespace"' % [c.jobSelector, c.clusterLabel]),
  query(c, 'instance', 'Instance',
        'Scrape target (address:port) of the exporter: in Kubernetes one per pod, beside its name in Pod.',
        '%s, %s=~"$cluster", job=~"$job", namespace=~"$namespace", pod=~"$pod"' % [c.jobSelector, c.clusterLabel], allValue='.+'),
]
