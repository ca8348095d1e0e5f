// Drill-down links: from a series or a table row to its redacted audit records, in Grafana Explore
// on the `loki_datasource` data source (the exporter writes one record a line to stdout, `--audit-log=-`, each
// starting with the key `audit` = `permission_denial`), and to the recent denials of one exporter
// reached through `kubectl port-forward` (the `exporter` variable) as a fallback.
//
// links(c, what, filters, exporterQuery) returns both links. `filters` is an array of
// [audit record key, operator, value], the value a Grafana template such as
// '${__field.labels.tool}' or a literal; Grafana fills the templates when the link is clicked, each
// percent-encoded into the URL.
// The unreserved characters of RFC 3986, as an object: std.member on a string is far too slow here.
local safe = { [std.char(i)]: true for i in std.range(48, 57) + std.range(65, 90) + std.range(97, 122) }
             + { '-': true, '_': true, '.': true, '~': true };
local hex = '0123456789ABCDEF';
local encode(s) = std.join('', [
  if std.objectHas(safe, ch) then ch
  else '%' + hex[std.codepoint(ch) >> 4] + hex[std.codepoint(ch) % 16]
  for ch in std.stringChars(s)
]);
local isTemplate(v) = std.startsWith(v, '${');
// A Grafana template inside the encoded URL: percent-encoded by Grafana itself, not here.
local asParam(v) = if std.endsWith(v, ':percentencode}') || !std.startsWith(v, '${__') then v
else std.substr(v, 0, std.length(v) - 1) + ':percentencode}';

{
  // The LogQL that selects the audit records matching `filters` in the exporter containers' logs.
  // A filter on the risk class also takes the `risk_decided` lines: a denial counted before its input
  // was known has `"risk":"pending"` on its `permission_denial` line and its class on the later one.
  // A filter on `audit` itself (the `denial_unenforced` lines) replaces the default one.
  logql(c, filters):: std.join(' | ', [c.auditStreamSelector, 'json'] + (
                                 if std.length([f for f in filters if f[0] == 'audit']) > 0 then []
                                 else if std.length([f for f in filters if f[0] == 'risk']) > 0
                                 then ['audit=~"permission_denial|risk_decided"']
                                 else ['audit="permission_denial"']) + [
    '%s%s"%s"' % [f[0], f[1], if isTemplate(f[2]) then 'GRAFANA%dTEMPLATE' % i else f[2]]
    for i in std.range(0, std.length(filters) - 1)
    for f in [filters[i]]
  ]),

  // A Grafana Explore URL (schemaVersion 1, Grafana 10 and later) running `logql` on `datasource`
  // over [from, to]; every `${...}` in filters, datasource, from and to is left for Grafana to fill.
  exploreURL(c, filters, datasource='${loki_datasource}', from='${__from}', to='${__to}')::
    local templates = [f[2] for f in filters];
    local panes = {
      a: {
        datasource: 'GRAFANADSTEMPLATE',
        queries: [{
          refId: 'A',
          expr: $.logql(c, filters),
          queryType: 'range',
          datasource: { type: 'loki', uid: 'GRAFANADSTEMPLATE' },
        }],
        range: { from: 'GRAFANAFROMTEMPLATE', to: 'GRAFANATOTEMPLATE' },
      },
    };
    local encoded = encode(std.manifestJsonMinified(panes));
    local filled = std.foldl(
      function(acc, i) if isTemplate(templates[i]) then std.strReplace(acc, 'GRAFANA%dTEMPLATE' % i, asParam(templates[i])) else acc,
      std.range(0, std.length(templates) - 1),
      std.strReplace(std.strReplace(std.strReplace(encoded, 'GRAFANADSTEMPLATE', datasource),
                                    'GRAFANAFROMTEMPLATE', from), 'GRAFANATOTEMPLATE', to)
    );
    '/explore?schemaVersion=1&orgId=1&panes=' + filled,

  // The Prometheus data source's exemplar link (deploy/grafana/datasource.yaml): the audit records
  // of the exemplar's execution, over the last week, on the Loki data source provisioned beside it.
  exemplarURL(c, lokiUID):: std.strReplace(
    $.exploreURL(c, [['execution_id', '=', '${__value.raw}']], datasource=lokiUID, from='now-7d', to='now'),
    '${__value.raw:percentencode}', '${__value.raw}'
  ),

  links(c, what, filters, exporterQuery):: [
    {
      title: '%s: audit records (Loki)' % what,
      url: $.exploreURL(c, filters),
      targetBlank: true,
    },
    {
      title: '%s: recent denials of one exporter (port-forward)' % what,
      url: '${exporter}/api/v1/denials?' + exporterQuery,
      targetBlank: true,
    },
  ],
}
