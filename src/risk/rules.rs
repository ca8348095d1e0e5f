//! The built-in patterns: what each dangerous class looks like in a command line, a path, a URL
//! or a written file, as byte regexes over folded text (see `text`).
//!
//! Owns the rule table: [`text_rules`], for every examined field (the rules for the path of a
//! file write are in `paths`). Each text rule has anchors, literals one of which any text it
//! matches holds. A pattern either names a class, or asks `hosts` a question: [`Effect::Send`]
//! (data is being sent: is any destination outside the allowlist?) and [`Effect::Url`] (a URL is
//! present: does one carry data or name a sink?).
//! **Not here:** compiling and running the rules (`engine`), which field a pattern applies to
//! (`scan`), user rules (`user`).
//!
//! The shapes come from public hardening guidance: OWASP's LLM Top 10 (excessive agency) and its
//! CI/CD Top 10, MITRE ATT&CK's tactics (credential access, exfiltration, privilege escalation,
//! impact), GitHub's Actions security hardening guide, GTFOBins, and the command deny lists agent
//! vendors ship for their own shells (force pushes, `rm -rf`, `curl | sh`, `sudo`).
//!
//! Cold: read once, when `engine` compiles the rules.

use super::Risk;

/// What a match of one built-in pattern means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Effect {
    Class(Risk),
    /// Data is being sent somewhere (an upload flag, a raw socket, a remote copy): exfiltration
    /// if a destination host in the same text is outside the allowlist.
    Send,
    /// The text holds a URL: exfiltration if one names a sink or carries data to a host outside
    /// the allowlist.
    Url,
}

impl Effect {
    /// The class a match can give: its own, or exfiltration for `Send` and `Url` (when a host
    /// is outside the allowlist).
    pub(super) fn class(self) -> Risk {
        match self {
            Effect::Class(risk) => risk,
            Effect::Send | Effect::Url => Risk::Exfiltration,
        }
    }
}

/// Literals (matched ASCII case-insensitively, a space matching any ASCII whitespace) of which
/// a text must hold at least one for a rule to match it (`crate::matcher`). A leading `\b` asks
/// for no word byte (ASCII letter, digit, `_`) just before the literal, a trailing one for none
/// just after it: `\bgh ` holds for `gh api` but not for `ghp_…` or `sigh`. An anchor may say
/// less than what the rule needs; it must never be absent from a text the rule matches (the
/// unit tests check this against every rule, over the corpus and variants of it).
pub(super) type Anchors = &'static [&'static str];
/// A pattern source with its anchors.
pub(super) type Anchored = (Anchors, String);

/// One built-in text rule.
pub(super) struct Rule {
    pub(super) effect: Effect,
    pub(super) anchors: Anchors,
    pub(super) source: String,
}

/// Start of a command word: the start of the text or of a command, or a path separator (so
/// `/usr/bin/git` is `git`).
const S: &str = r"(?:^|[\s;&|(/])";
/// The rest of one simple command, lazily: no separator.
const A: &str = r"[^;&|\n]*?";
/// End of a word.
const E: &str = r"(?:$|[\s;&|)>*])";
/// Directories an agent has no business writing or deleting: system, and other users' homes.
pub(super) const SYSTEM_DIRS: &str = r"(?:etc|usr|bin|sbin|boot|lib|lib32|lib64|libx32|dev|sys|proc|System|Library|Applications|var/(?:lib|log|www|spool|mail|backups|db|opt|cache))";

#[rustfmt::skip]
fn history_rewrite() -> Vec<Anchored> {
    vec![
        // Force pushes, deleting and mirroring pushes, +refspecs and :refspecs; short flags
        // clustered (`-fu`) and long flags abbreviated (`--forc`, `--force-with-lease`).
        (&[r"\bpush\b"], format!(r"{S}git\s{A}\bpush\b{A}(?:\s-[a-zA-Z]*f|\s--forc|\s--mir|\s--del|\s-d\b|\s--pru|\s\+\S|\s:\S)")),
        (&[r"--hard\b"], format!(r"{S}git\s{A}\breset\s{A}--hard\b")),
        (&[r"\bbranch\b"], format!(r"{S}git\s{A}\bbranch\b{A}\s-[a-zA-Z]*D\b")),
        (&[r"\bfilter-"], format!(r"{S}git\s{A}\b(?:filter-branch|filter-repo)\b")),
        (&[r"\breflog "], format!(r"{S}git\s{A}\breflog\s+(?:expire|delete)\b")),
        (&[r"\bupdate-ref\b"], format!(r"{S}git\s{A}\bupdate-ref\b{A}\s-d\b")),
        (&[r"\bhg "], format!(r"{S}hg\s{A}\b(?:push\b{A}\s(?:-f|--force)\b|strip\b)")),
        (&[r"\bgh "], format!(r"{S}gh\s+repo\s+delete\b")),
        (&[r"\bgh "], format!(r"{S}gh\s+api\s{A}(?:-X|--method)\s*DELETE\b{A}(?:git/refs|/protection)")),
    ]
}

#[rustfmt::skip]
fn data_destruction() -> Vec<Anchored> {
    let outside = format!(
        r"(?:/\*?|~/?\S*|\$\{{?HOME\}}?\S*|\.\./\S*|\.\.|/{SYSTEM_DIRS}(?:/\S*)?|/(?:home|Users)(?:/[^/\s]+)?/?|/(?:home|Users)/[^/\s]+/\.\S*|/root(?:/\.\S*)?/?|/(?:opt|mnt|media|srv)/?)"
    );
    vec![
        (&[r"\brm\b"], format!(r"{S}rm\b{A}\s{outside}{E}")),
        (&["no-preserve-root"], r"--no-preserve-root".to_string()),
        (&[r"\bfind "], format!(r"{S}find\s+(?:/|~|\$\{{?HOME\}}?|/{SYSTEM_DIRS}|/home|/Users)\S*\s{A}(?:-delete\b|-exec\s+(?:\S*/)?rm\b)")),
        (&[r"\bmkfs", r"\bwipefs ", r"\bshred "], format!(r"{S}(?:mkfs(?:\.[a-z0-9]+)?|wipefs|shred)\s")),
        (&["of=/dev/"], format!(r"{S}dd\s{A}\bof=/dev/")),
        (&["/dev/"], r">\s*/dev/(?:sd[a-z]|nvme[0-9]|hd[a-z]|vd[a-z]|xvd[a-z]|disk[0-9]|mmcblk[0-9])".to_string()),
        (&[r"\bmv\b"], format!(r"{S}mv\b{A}\s(?:~|/|\$\{{?HOME)\S*\s+/dev/null{E}")),
        (&[r"\bdrop ", r"\btruncate ", r"\bflushall\b", r"\bflushdb\b"], r"(?i)\b(?:drop\s+(?:table|database|schema|collection)|truncate\s+table|flushall|flushdb)\b".to_string()),
        (&[r"\bdelete "], r"(?i)\bdelete\s+from\s+[a-z0-9_.]+\s*(?:;|$)".to_string()),
        (&[r"\bdropdb "], format!(r"{S}dropdb\s")),
        (&["dropdatabase"], r"\.dropDatabase\(".to_string()),
        (&[r"\bremove-item\b"], r"(?i)\bRemove-Item\b[^\n]*-Recurse[^\n]*(?:\s[a-z]:\\?\s|\s[a-z]:/?(?:\s|$)|~|\$env:USERPROFILE|\$HOME)".to_string()),
        (&[r"\brd ", r"\brmdir "], r"(?i)\b(?:rd|rmdir)\s+/s\s+/q\s+[a-z]:".to_string()),
        (&[r"\bformat "], r"(?i)(?:^|[\s;&|])format\s+[a-z]:".to_string()),
    ]
}

#[rustfmt::skip]
fn remote_code() -> Vec<Anchored> {
    let shell = r"(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+)?(?:\S*/)?(?:ba|z|k|da|c|tc|fi|a)?sh\b";
    let interpreter = r"(?:sudo\s+(?:-\S+\s+)*)?(?:\S*/)?(?:python[0-9.]*|perl|ruby|node|php|pwsh|powershell)\s*(?:-\s*)?(?:$|[;&|)\n])";
    vec![
        (&[r"\bcurl\b", r"\bwget\b", r"\bfetch\b", r"\baria2c\b"], format!(r"{S}(?:curl|wget|fetch|aria2c)\b[^;&\n]*\|\s*{shell}")),
        (&[r"\bcurl\b", r"\bwget\b", r"\bfetch\b"], format!(r"{S}(?:curl|wget|fetch)\b[^;&\n]*\|\s*{interpreter}")),
        (&["<("], r"(?:sh|bash|zsh|source|\.|python[0-9.]*|perl|ruby|node)\s+<\(\s*(?:curl|wget)\b".to_string()),
        (&["$("], r"(?:\b(?:ba|z|da)?sh\s+-c|\beval)\s+\$\(\s*(?:curl|wget)\b".to_string()),
        (&["base64 ", "xxd ", "openssl "], format!(r"(?:base64\s+(?:-d|--decode|-D)|xxd\s+-r|openssl\s+(?:base64|enc)\s{A}-d)\b[^;&\n]*\|\s*{shell}")),
        (&["/dev/tcp", "/dev/udp"], r"-i\s*>&\s*/dev/(?:tcp|udp)/".to_string()),
        (&["0>&1"], r"/dev/(?:tcp|udp)/\S+\s+0>&1".to_string()),
        (&[r"\bnc\b", r"\bncat\b", r"\bnetcat\b"], format!(r"{S}(?:nc|ncat|netcat)\b{A}\s-[a-zA-Z]*[ec]\s")),
        (&[r"\bexec:"], r"(?i)socat\s[^\n]*\bexec:".to_string()),
        (&[r"\bmkfifo "], format!(r"{S}mkfifo\s[^\n]*\|\s*(?:nc|ncat|netcat)\b")),
        (&[r"\biex\b", r"\binvoke-expression\b"], r"(?i)\|\s*(?:iex|invoke-expression)\b".to_string()),
        (&[r"\biex\b"], r"(?i)\biex\s*\(\s*\(?\s*(?:new-object|iwr|irm|invoke-webrequest|invoke-restmethod)".to_string()),
        (&["downloadstring"], r"(?i)\.downloadstring\(".to_string()),
        (&["urlopen(", "requests.get("], r"\bexec\([^\n]*(?:urlopen|requests\.get)\(".to_string()),
        (&[r"\bcurl\b", r"\bwget\b"], format!(r"{S}(?:curl|wget)\b[^\n]*(?:&&|;|\n)\s*(?:sudo\s+)?(?:(?:ba|z)?sh\s+\S+\.sh\b|\./\S+\.sh\b)")),
        (&[r"\bnpx "], format!(r"{S}npx\s+(?:-y\s+|--yes\s+)?(?:https?://|github:|git\+)")),
    ]
}

fn credential_access() -> Vec<Anchored> {
    let sep = r"(?:^|[\s/=<:@(])";
    vec![
        (&[r"\b.env\b"], format!(r"{sep}\.env(?:\.(?:local|dev|development|prod|production|staging|stage|test|ci|live|secret|secrets))*{E}")),
        (&[r"\b.envrc\b"], format!(r"{sep}\.envrc{E}")),
        (&[".ssh/"], format!(r"\.ssh/(?:id_[a-z0-9_-]+|[^\s/]*_key|identity|[^\s/]*\.pem){E}")),
        (&[r".ssh\b"], format!(r"\.ssh/?{E}")),
        (&[r"\bid_"], format!(r"\bid_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?{E}")),
        (&[r".aws\b"], format!(r"\.aws(?:/(?:credentials|config|sso)|/?{E})")),
        (&[".config/gcloud", "application_default_credentials", ".azure/", ".kube/config", ".docker/config"], r"\.config/gcloud\b|application_default_credentials\.json|\.azure/|\.kube/config\b|\.docker/config\.json".to_string()),
        (&[r"netrc\b", r"npmrc\b", r"pypirc\b", r"git-credentials\b", r"pgpass\b", r"my.cnf\b", r"vault-token\b"], format!(r"[./_](?:netrc|npmrc|pypirc|git-credentials|pgpass|my\.cnf|vault-token){E}")),
        (&["hosts.yml", ".gnupg", ".password-store", ".terraform.d/credentials", ".cargo/credentials", ".gem/credentials", ".m2/settings", "credentials.tfrc.json"], r"\.config/gh/hosts\.yml|\.gnupg\b|\.password-store\b|\.terraform\.d/credentials|\.cargo/credentials|\.gem/credentials|\.m2/settings(?:-security)?\.xml|credentials\.tfrc\.json".to_string()),
        (&["shadow", "master.passwd", "/environ", "/run/secrets/", "serviceaccount"], r"/etc/(?:g?shadow|master\.passwd)\b|/proc/(?:self|[0-9]+|\*|\$\$)/environ|/run/secrets/|kubernetes\.io/serviceaccount".to_string()),
        (&[r"\bcredentials.json", r"\bclient_secret", r"\bserviceaccount", r"\bservice-account", r"\bservice_account", "-sa-key", ".tfstate", r"\bsecret.", r"\bsecrets.", ".p12", ".pfx", ".jks", ".keystore", "privatekey", "private-key", "private_key"], r"(?i)(?:^|[\s/])(?:credentials|client_secrets?|service[-_]?account[^\s/]*|[^\s/]*-sa-key)\.json\b|\.tfstate\b|(?:^|[\s/])\.?secrets?\.(?:ya?ml|json|toml|env)\b|\.(?:p12|pfx|jks|keystore)\b|private[-_]?key[^\s/]*\.pem".to_string()),
        // Instance metadata endpoints (AWS, ECS, GCP, Azure, Alibaba) and their paths.
        (&["169.254.169.254", "169.254.170.2", "metadata.google.internal", "fd00:ec2::254", "100.100.100.200", "/computemetadata/", "/latest/meta-data/iam"], r"169\.254\.169\.254|169\.254\.170\.2|(?i:metadata\.google\.internal)|fd00:ec2::254|100\.100\.100\.200|/computeMetadata/|/latest/meta-data/iam".to_string()),
        (&[r"\bprintenv\b", r"\benv\b", r"\bexport "], format!(r"{S}printenv\b|(?:^|[;&|(]\s*|\s)env\s*(?:$|[|>;&)])|\bexport\s+-p\b")),
        (&[r"\bgh "], format!(r"{S}gh\s+auth\s+(?:token\b|status\s{A}(?:-t\b|--show-token))")),
        (&[r"\bfill\b", "--get"], format!(r"{S}git\s{A}\bcredential\s+fill\b|{S}git\s+config\s{A}--get\S*\s+credential")),
        (&["configure", "get-session-token", "secretsmanager", "--with-decryption", "get-login-password", "create-access-key"], format!(r"{S}aws\s+(?:configure\s+(?:get|export-credentials)\b|sts\s+get-session-token|secretsmanager\s+get-secret-value|ssm\s+get-parameters?\s{A}--with-decryption|ecr\s+get-login-password|iam\s+create-access-key)")),
        (&["print-access-token", "print-identity-token", "versions"], format!(r"{S}gcloud\s{A}\bauth\s{A}\bprint-(?:access|identity)-token|{S}gcloud\s+secrets\s+versions\s+access")),
        (&["get-access-token", "keyvault"], format!(r"{S}az\s+(?:account\s+get-access-token|keyvault\s+secret\s+(?:show|download))")),
        (&[r"\bkubectl ", r"\boc "], format!(r"{S}(?:kubectl|oc)\s{A}\b(?:(?:get|describe)\s+secrets?\b|create\s+token\b)")),
        (&[r"\bvault ", r"\bop ", "docker-credential-"], format!(r"{S}(?:vault\s+(?:read|kv\s+get)|op\s+(?:read|item\s+get))\b|docker-credential-\S+\s+get\b")),
        (&["find-generic-password", "find-internet-password", "dump-keychain", "cmdkey", "mimikatz", "lazagne", "secretsdump"], format!(r"{S}security\s+(?:find-(?:generic|internet)-password|dump-keychain)|{S}cmdkey\s+/list|(?i:\b(?:mimikatz|lazagne|secretsdump)\b)")),
        (&["$"], format!(r"{S}(?:echo|printf|cat)\s{A}\$\{{?[A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS)\b")),
        // A credential passed inline: the agent is wielding a secret it holds.
        (&["aws_secret_access_key", "aws_session_token", "secret-access-key"], r"(?:^|\s)AWS_(?:SECRET_ACCESS_KEY|SESSION_TOKEN)=\S|--(?:aws-)?secret-access-key\b".to_string()),
        (&["token=", "secret=", "password=", "api_key="], r"(?:^|\s)[A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|API_KEY)=[^\s$]{8,}\s+[a-z]".to_string()),
    ]
}

/// The verbs of a mutating AWS call (`aws ec2 terminate-instances`), each followed by `-`.
const AWS_MUTATING_VERBS: &str = "delete|terminate|put|create|update|modify|stop|reboot|attach|detach|deregister|remove|revoke|authorize|run|start|cancel|disable|enable|reset|restore|replace|associate|disassociate|register|invoke";

#[rustfmt::skip]
fn infra_change() -> Vec<Anchored> {
    vec![
        (&[r"\bkubectl ", r"\boc "], format!(r"{S}(?:kubectl|oc)\s{A}\b(?:delete|apply|replace|patch|scale|drain|cordon|taint|edit|create|expose|autoscale|exec|rollout\s+(?:restart|undo|pause)|set\s+(?:image|env|resources))\b")),
        (&[r"\bhelm "], format!(r"{S}helm\s{A}\b(?:install|upgrade|uninstall|delete|rollback)\b")),
        (&[r"\bterraform ", r"\btofu ", r"\bterragrunt "], format!(r"{S}(?:terraform|tofu|terragrunt)\s{A}\b(?:apply|destroy|import|taint|untaint|force-unlock|state\s+(?:rm|mv|push|replace-provider))\b")),
        (&[r"\bpulumi ", r"\bcdk ", r"\bserverless ", r"\bsls "], format!(r"{S}pulumi\s{A}\b(?:up|update|destroy|refresh|import|cancel|stack\s+rm)\b|{S}cdk\s+(?:deploy|destroy)\b|{S}(?:serverless|sls)\s+(?:deploy|remove)\b")),
        (&[r"\beksctl ", r"\bfly ", r"\bflyctl ", r"\bfirebase ", r"\bwrangler ", r"\bvercel ", r"\bnetlify "], format!(r"{S}(?:eksctl\s+(?:create|delete|scale|upgrade)|fly(?:ctl)?\s+deploy|firebase\s+deploy|wrangler\s+(?:deploy|publish)|(?:vercel|netlify\s+deploy)\s{A}--prod)\b")),
        (&[r"\bheroku "], format!(r"{S}heroku\s{A}\b(?:apps:destroy|pg:reset|releases:rollback|config:set|ps:scale)\b")),
        (&[r"\baws\b"], format!(r"{S}aws\b{A}\s(?:{})-[a-z0-9-]+", AWS_MUTATING_VERBS)),
        (&[r"\baws "], format!(r"{S}aws\s+s3\s+(?:rm|rb|mv)\b|{S}aws\s+s3\s+sync\s{A}--delete\b|{S}aws\s+(?:lambda\s+invoke|deploy\s)")),
        (&[r"\bgcloud\b"], format!(r"{S}gcloud\b{A}\s(?:delete|deploy|create|update|set-iam-policy|add-iam-policy-binding|remove-iam-policy-binding|resize)\b")),
        (&[r"\baz\b"], format!(r"{S}az\b{A}\s(?:delete|create|update|purge|deploy|restart|stop)\b")),
        (&[r"\bpublish\b", r"\bunpublish\b", r"\bdeprecate\b", r"\bdist-tag ", r"\bowner "], format!(r"{S}(?:npm|yarn|pnpm|bun)\s{A}\bpublish\b|{S}npm\s+(?:unpublish|deprecate|dist-tag\s+add|owner\s+add)\b")),
        (&[r"\bcargo ", r"\btwine ", r"\bpoetry ", r"\bflit ", r"\bhatch ", r"\buv ", r"\bpdm ", r"\bgem "], format!(r"{S}cargo\s+(?:publish|yank|owner\s+--add)\b|{S}twine\s+upload\b|{S}(?:poetry|flit|hatch|uv|pdm)\s+publish\b|{S}gem\s+(?:push|yank)\b")),
        (&[r"\bmvn ", r"\bmvnw ", r"\bgradle ", r"\bgradlew ", r"\bnuget "], format!(r"{S}(?:mvn|mvnw)\s{A}\bdeploy\b|{S}(?:gradle|gradlew)\s{A}\bpublish[a-zA-Z]*\b|{S}(?:dotnet\s+)?nuget\s+push\b")),
        (&[r"\bgh "], format!(r"{S}gh\s+(?:release\s+(?:create|upload|delete|edit)|secret\s+(?:set|delete)|variable\s+(?:set|delete)|workflow\s+(?:run|enable|disable))\b")),
        (&[r"\bgh "], format!(r"{S}gh\s+api\s{A}(?:-X|--method)\s*(?:DELETE|PUT)\b")),
        (&[r"\bdocker ", r"\bpodman ", r"\bbuildah ", r"\bcrane ", r"\bskopeo "], format!(r"{S}(?:docker|podman|buildah)\s{A}\bpush\b|{S}docker\s+buildx\s{A}--push\b|{S}(?:crane|skopeo)\s+(?:push|copy|cp|delete)\b")),
        (&[r"\bsystemctl ", r"\bservice ", r"\bshutdown\b", r"\breboot\b", r"\bpoweroff\b", r"\bhalt\b", r"\biptables\b"], format!(r"{S}(?:systemctl|service)\s{A}\b(?:stop|disable|mask|kill|restart)\b|{S}(?:shutdown|reboot|poweroff|halt)\b|{S}iptables\b{A}\s-[FXP]\b")),
    ]
}

#[rustfmt::skip]
fn privilege_escalation() -> Vec<Anchored> {
    vec![
        (&[r"\bsudo ", r"\bdoas ", r"\bpkexec ", r"\brunas "], format!(r"{S}(?:sudo|doas|pkexec|runas)\s")),
        (&[r"\bsu\b"], format!(r"{S}su(?:\s+-|\s+root\b|\s*$|\s+-c\b)")),
        (&[r"\bchmod\b"], format!(r"{S}chmod\b{A}\s(?:-R\s+)?(?:0?777|0?666|[2467][0-7]{{3}}|[ugoa]*\+[rwxt]*s[rwxt]*|a\+rwx|o\+w)\b")),
        (&[r"\bchown\b", r"\bsetcap ", r"\busermod "], format!(r"{S}chown\b{A}\sroot\b|{S}setcap\s|{S}usermod\s{A}-[a-zA-Z]*G\s*\S*(?:sudo|wheel|docker|admin|root)")),
        (&[r"\bvisudo\b", r"\bchpasswd\b", r"\buseradd\b", r"\badduser\b", r"\bpasswd\b", "/etc/sudoers", r"\bnopasswd\b"], format!(r"{S}(?:visudo|chpasswd|useradd|adduser|passwd)\b|(?:>>?\s*|tee\s+(?:-a\s+)?|{S}(?:cp|mv|install)\b{A}\s)/etc/sudoers|\bNOPASSWD\b")),
        (&["authorized_keys", ".bashrc", ".bash_profile", ".profile", ".zshrc", ".zprofile", "/etc/cron", "/etc/profile", "ld.so.preload"], format!(r"(?:>>?\s*|tee\s+(?:-a\s+)?){A}(?:\.ssh/authorized_keys|\.bashrc|\.bash_profile|\.profile|\.zshrc|\.zprofile|/etc/cron|/etc/profile|/etc/ld\.so\.preload)")),
        (&[r"\bcrontab "], format!(r"{S}crontab\s+(?:-e\b|-r\b|-(?:\s|$)|[^-\s]\S*{E})")),
        (&[r"\bdocker ", r"\bpodman "], format!(r"{S}(?:docker|podman)\s{A}\b(?:run|create)\b{A}(?:--privileged|--pid[=\s]host|--cap-add[=\s]*(?:ALL|SYS_ADMIN)|-v\s*/:/|--volume[=\s]/:/|--userns[=\s]host)")),
        (&["docker.sock"], r"(?:/var)?/run/docker\.sock".to_string()),
        (&[r"\bnsenter\b", r"\bchroot\b", r"\binsmod\b", r"\bmodprobe\b", r"\bsetenforce ", r"\bufw "], format!(r"{S}(?:nsenter|chroot|insmod|modprobe|setenforce\s+0)\b|{S}ufw\s+disable\b")),
        // The agent lifting its own permission checks.
        (&["dangerously-skip-permissions", "bypasspermissions"], r"--dangerously-skip-permissions|bypassPermissions".to_string()),
        (&[".claude/settings"], format!(r"(?:>>?\s*|tee\s+(?:-a\s+)?|sed\s+-i\S*\s{A}|{S}(?:cp|mv)\b{A}\s){A}\.claude/settings")),
    ]
}

#[rustfmt::skip]
fn exfiltration() -> Vec<Rule> {
    let rule = |effect, anchors: Anchors, source: String| Rule { effect, anchors, source };
    let send = |anchors, source| rule(Effect::Send, anchors, source);
    let always = |anchors, source| rule(Effect::Class(Risk::Exfiltration), anchors, source);
    vec![
        send(&[r"\bcurl\b"], format!(r"{S}curl\b{A}\s(?:-[a-zA-Z]*[dFT]|--data|--form|--upload-file|--json|-X\s*(?:POST|PUT|PATCH)|--request\s*(?:POST|PUT|PATCH))")),
        send(&[r"\bwget\b"], format!(r"{S}wget\b{A}\s--(?:post-(?:data|file)|body-(?:data|file)|method[=\s]\s*(?:POST|PUT|PATCH))")),
        send(&[r"\bpost ", r"\bput ", r"\bpatch "], format!(r"{S}(?:http|https|xh|xhs)\s+(?:-\S+\s+)*(?:POST|PUT|PATCH)\s")),
        send(&[r"\binvoke-webrequest\b", r"\binvoke-restmethod\b", r"\biwr\b", r"\birm\b"], r"(?i)\b(?:Invoke-WebRequest|Invoke-RestMethod|iwr|irm)\b[^\n]*-(?:Method\s+(?:Post|Put|Patch)|InFile|Body)\b".to_string()),
        send(&[r"\bnc ", r"\bncat ", r"\bnetcat ", r"\btelnet ", r"\bsocat ", "/dev/tcp/", "/dev/udp/"], format!(r"{S}(?:nc|ncat|netcat|telnet|socat)\s+\S|/dev/(?:tcp|udp)/")),
        send(&[r"\bscp ", r"\bsftp ", r"\brsync ", r"\bssh "], format!(r"{S}(?:scp|sftp)\s|{S}rsync\s{A}\S:|\|\s*ssh\s")),
        send(&[r"\bpush ", r"\bremote "], format!(r"{S}git\s{A}\b(?:push|remote\s+(?:add|set-url))\s{A}(?:(?:https?|ssh|git)://|@[a-zA-Z0-9.-]+:)")),
        send(&["$("], format!(r"{S}(?:dig|nslookup|host|ping|drill)\s{A}\$\(")),
        always(&["s3://"], format!(r"{S}aws\s+s3\s+(?:cp|mv|sync)\s+(?:-\S+\s+)*[^-\s]\S*\s{A}s3://")),
        always(&["gs://", r"\bstorage ", r"\brclone "], format!(r"{S}gsutil\s{A}\b(?:cp|rsync|mv)\s+(?:-\S+\s+)*[^-\s]\S*\s{A}gs://|{S}az\s+storage\s+(?:blob|file)\s+upload|{S}rclone\s+(?:copy|sync|move)\s")),
        always(&[r"\bgh "], format!(r"{S}gh\s+(?:gist\s+create\b|repo\s+edit\s{A}--visibility[=\s]+public|repo\s+create\s{A}--public\b)")),
        always(&[r"\bsendmail\b", r"\bmailx\b", r"\bmutt\b", r"\bmail ", r"\bpastebinit\b"], format!(r"(?i)\b(?:sendmail|mailx|mutt)\b|{S}mail\s+-s\s|{S}pastebinit\b")),
        rule(Effect::Url, &["://"], r"(?i)\b[a-z][a-z0-9+.-]*://".to_string()),
    ]
}

/// Every built-in text rule, in a fixed order.
pub(super) fn text_rules() -> Vec<Rule> {
    let classed = [
        (Risk::HistoryRewrite, history_rewrite()),
        (Risk::DataDestruction, data_destruction()),
        (Risk::RemoteCode, remote_code()),
        (Risk::CredentialAccess, credential_access()),
        (Risk::InfraChange, infra_change()),
        (Risk::PrivilegeEscalation, privilege_escalation()),
    ];
    classed
        .into_iter()
        .flat_map(|(risk, patterns)| classed_rules(risk, patterns))
        .chain(exfiltration())
        .collect()
}

/// The rules of one class, from its patterns.
pub(super) fn classed_rules(risk: Risk, patterns: Vec<Anchored>) -> impl Iterator<Item = Rule> {
    patterns.into_iter().map(move |(anchors, source)| Rule {
        effect: Effect::Class(risk),
        anchors,
        source,
    })
}
