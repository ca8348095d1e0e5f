#!/usr/bin/env python3
"""Writes positives.txt and negatives.txt: the redaction corpus.

Every secret here is FAKE: format-valid (prefix, length, alphabet), with FAKE spelled into
it where the format allows, from a fixed seed. Formats follow the public rule sets
(gitleaks' config/gitleaks.toml, detect-secrets' plugins, trufflehog's detectors); the command
lines are the shapes agents run.

positives.txt: `SECRET<TAB>TEXT` per line; TEXT holds SECRET (plain or in the encoded form
given), and after redaction SECRET must not appear. negatives.txt: one TEXT per line that
must come out unchanged. Lines starting with `#` are comments. Run from this directory:
`python3 generate.py` (deterministic).
"""
import base64, json, random, urllib.parse

rng = random.Random(20261122)
AN = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
HEX = "0123456789abcdef"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
URL = AN + "-_"


def r(alpha, n):
    return "".join(rng.choice(alpha) for _ in range(n))


def fake(alpha, n):
    """n characters from alpha, starting with FAKE when the alphabet allows it."""
    head = "FAKE" if all(c in alpha for c in "FAKE") else ("fake" if all(c in alpha for c in "fake") else "")
    return head + r(alpha, n - len(head))


TOKENS = {
    "github_classic": lambda: "ghp_" + fake(AN, 36),
    "github_oauth": lambda: "gho_" + fake(AN, 36),
    "github_user": lambda: "ghu_" + fake(AN, 36),
    "github_server": lambda: "ghs_" + fake(AN, 36),
    "github_refresh": lambda: "ghr_" + fake(AN, 36),
    "github_fine": lambda: "github_pat_" + fake(AN, 22) + "_" + r(AN, 59),
    "gitlab": lambda: "glpat-" + fake(URL, 20),
    "slack_bot": lambda: "xoxb-" + r("0123456789", 12) + "-" + r("0123456789", 13) + "-" + fake(AN, 24),
    "slack_user": lambda: "xoxp-" + r("0123456789", 12) + "-" + r("0123456789", 12) + "-" + r("0123456789", 13) + "-" + r(HEX, 32),
    "anthropic": lambda: "sk-ant-api03-" + fake(URL, 93) + "AA",
    "openai": lambda: "sk-proj-" + fake(URL, 74) + "T3BlbkFJ" + r(URL, 74),
    "stripe": lambda: "sk_live_" + fake(AN, 24),
    "stripe_restricted": lambda: "rk_live_" + fake(AN, 24),
    "npm": lambda: "npm_" + fake(AN, 36),
    "aws_akia": lambda: "AKIA" + fake(B32, 16),
    "aws_asia": lambda: "ASIA" + fake(B32, 16),
    "google": lambda: "AIza" + fake(URL, 35),
    "huggingface": lambda: "hf_" + fake(AN[:52], 34),
    "sendgrid": lambda: "SG." + fake(URL, 22) + "." + r(URL, 43),
    "digitalocean": lambda: "dop_v1_" + fake(HEX, 64),
    "shopify": lambda: "shpat_" + fake(HEX, 32),
    "pypi": lambda: "pypi-AgEIcHlwaS5vcmc" + fake(URL, 60),
    "doppler": lambda: "dp.pt." + fake(AN, 43),
    "vault": lambda: "hvs." + fake(URL, 90),
    "linear": lambda: "lin_api_" + fake(AN, 40),
    "jwt": lambda: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJGQUtFIn0." + r(URL, 43),
    "jws_opaque_payload": lambda: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + fake(AN, 40) + "." + r(URL, 43),
}

pos = []


def P(secret, text):
    assert secret in text, (secret, text)
    assert "\t" not in text and "\n" not in text
    pos.append(f"{secret}\t{text}")


PLAIN = [
    "export GITHUB_TOKEN={}",
    "curl -H 'Authorization: token {}' https://api.github.com/user",
    "gh auth login --with-token <<< {}",
    "echo {} > ~/.config/token",
    "Deployed to staging with token {}",
    "CI is green. Debug dump for the maintainers: {}",
    '{{"command":"curl -s https://api.example.com -H \\"X-Key: {}\\""}}',
    "git remote set-url origin https://x:{}@github.com/acme/web.git",
]
GLUED = [
    "mcp__x__send_{}",
    "mcp__github__create_issue_{}_v2",
    "tool=send_{} ok",
    "key{}",
    "prefix-{}-suffix",
    "Bearer{}",
    "https://webhook.site/3f1c2a9e?d={}",
]
for name, make in TOKENS.items():
    for t in PLAIN[:4]:
        s = make()
        P(s, t.format(s))
    for t in GLUED:
        s = make()
        P(s, t.format(s))

# Passwords given to CLI tools.
def pw():
    return "Fake" + r(AN, 8) + "!9"

FLAGS = [
    "docker login -u deploy -p '{}' registry.acme.dev",
    'docker login -u deploy -p "{}" registry.acme.dev',
    "docker login -u deploy -p {} registry.acme.dev",
    "docker login registry.acme.dev --username deploy --password {}",
    "podman login -u ci -p {} quay.io",
    "helm registry login ghcr.io -u bot -p '{}'",
    "sshpass -p '{}' ssh deploy@build.example.com",
    "sshpass -p {} scp dist.tar deploy@10.0.0.5:/srv",
    "sshpass -p{} ssh root@10.1.2.3 uptime",
    "mysql -uroot -p{} -h db.example.com shop",
    "mysql -u root -p'{}' shop < dump.sql",
    "mysqldump -u app -p\"{}\" app > app.sql",
    "mysql --user=root --password={} -e 'show databases'",
    "mysql -u root --password '{}' -e 'select 1'",
    "mariadb -uadmin -p{} --host db",
    "curl -u admin:{} https://jenkins.example.com/api/json",
    "curl --user 'admin:{}' https://nexus.example.com/service/rest",
    "curl -sS -u \"ci:{}\" -X POST https://registry.example.com/v2/",
    "htpasswd -b .htpasswd admin {}",
    "htpasswd -bc /etc/nginx/.htpasswd admin '{}'",
    "htpasswd -nb admin {}",
    "PGPASSWORD={} psql -h db -U app app",
    "PGPASSWORD='{}' pg_dump -h db -U app app > app.sql",
    "MYSQL_PWD={} mysql -u root",
    "export DB_PASSWORD={}",
    "./deploy --password={} --region eu-west-1",
    "./deploy --password '{}' --region eu-west-1",
    "wget --user=ci --password={} https://files.example.com/a.tgz",
    "redis-cli -h cache.internal -a {} ping",
    "redis-cli -a '{}' --no-auth-warning info",
    "mongosh --host db -u admin -p {} --authenticationDatabase admin",
    "mongodump --username admin --password {} --db app",
    "sqlcmd -S db -U sa -P '{}' -Q 'select 1'",
    "ldapsearch -x -D cn=admin,dc=example,dc=org -w {} -b dc=example,dc=org",
    "smbclient //fs/share -U alice%{}",
    "lftp -u deploy,{} sftp://files.example.com",
    "sqlplus system/{}@//db:1521/ORCL",
    "7z a -p{} archive.7z dir",
    "zip -P {} secrets.zip notes.txt",
    "openssl pkcs12 -export -in c.pem -passout pass:{} -out c.p12",
    "ssh-keygen -t ed25519 -N '{}' -f ~/.ssh/id_ed25519",
    "ipmitool -I lanplus -H 10.0.0.9 -U admin -P {} power status",
    "mosquitto_pub -h broker -u dev -P {} -t x -m y",
    "xfreerdp /v:win01 /u:admin /p:{}",
    "rabbitmqctl add_user app {}",
    "git clone https://deploy:{}@git.example.com/acme/web.git",
    "psql 'postgresql://app:{}@db.internal:5432/app'",
    "az login --service-principal -u http://app -p {} --tenant acme",
    "kubectl create secret generic db --from-literal=password={}",
    "keytool -importkeystore -srckeystore a.jks -srcstorepass {} -destkeystore b.p12",
    "gpg --batch --passphrase '{}' -d secrets.gpg",
    "ansible-playbook site.yml -e ansible_password={}",
    "java -Dspring.datasource.password={} -jar app.jar",
    "mvn deploy -Drepo.password={}",
    "echo '{}' | docker login -u ci --password-stdin ghcr.io && docker login -u ci -p {} ghcr.io",
    "echo '{}' | passwd --stdin deploy",
    "influx -username admin -password {} -execute 'SHOW DATABASES'",
    "cqlsh cassandra.internal -u cassandra -p {}",
    "plink -ssh admin@10.0.0.7 -pw {} uptime",
    "pscp -pw '{}' dist.zip admin@10.0.0.7:/tmp",
    "psexec \\\\win01 -u CORP\\admin -p {} cmd",
    "snmpwalk -v3 -l authPriv -u mon -a SHA -A {} -x AES -X {} 10.0.0.1",
    "x11vnc -display :0 -passwd {}",
    "curl --oauth2-bearer {} https://api.example.com/me",
    "openssl enc -aes-256-cbc -k {} -in a -out b",
    "keydb-cli -a {} info",
    "mssql-cli -S db -U sa -P {}",
    "smbclient -L fs01 --user=alice%{}",
    "mongo admin -u root -p '{}' --eval 'db.stats()'",
    "nerdctl login -u ci -p {} harbor.example.com",
    "skopeo login -u ci -p {} quay.io",
    "echo \"deploy:{}\" | chpasswd",
    "printf '{}' | gh auth login --with-token",
    "curl --proxy-user proxy:{} https://example.com",
    "docker run -e POSTGRES_PASSWORD={} -d postgres:16",
    "docker run -e MYSQL_ROOT_PASSWORD='{}' mysql:8",
    "helm install db bitnami/postgresql --set auth.postgresPassword={}",
    "DATABASE_URL=postgres://app:{}@db.internal:5432/app",
    "stringData:\\n  password: {}\\n",
    '{{"username":"admin","password":"{}"}}',
    "net use \\\\fs01\\share /user:CORP\\alice {}",
    "echo 'machine api.example.com login bot password {}' > ~/.netrc",
    "Invoke-RestMethod -Uri $u -Credential (New-Object PSCredential('admin', (ConvertTo-SecureString '{}' -AsPlainText -Force)))",
]
for t in FLAGS:
    s = pw()
    P(s, t.replace("{}", s))

# Generic assignments with random-looking values.
GENERIC = [
    "APP_SECRET={}",
    "export SIGNING_KEY={}",
    "WEBHOOK_TOKEN={} node server.js",
    "JWT_SECRET=\"{}\"",
    "SESSION_SECRET: {}",
    "encryption_key = '{}'",
    '{{"apiSecret": "{}"}}',
    '{{"client_secret":"{}","grant_type":"client_credentials"}}',
    "MY_SERVICE_API_KEY={} ./run",
    "docker run -e INTERNAL_TOKEN={} app",
    "config.secret_key_base = '{}'",
    "DJANGO_SECRET_KEY={}",
    "NEXTAUTH_SECRET={}",
    "GITHUB_CLIENT_SECRET={}",
    "export MASTER_KEY={}",
    "PRIVATE_KEY={}",
    "ENCRYPTION_KEY: \"{}\"",
    "SENTRY_AUTH_TOKEN={} sentry-cli releases new v1",
    "HMAC_SIGNING_SECRET='{}' ./verify",
    "terraform apply -var db_password={}",
    "npm config set //registry.npmjs.org/:_authToken={}",
]
for t in GENERIC:
    s = r(AN, 6) + "9" + r(AN, 25)
    P(s, t.format(s))

# Encodings: the encoded run must not survive.
def b64(s, url=False):
    e = base64.urlsafe_b64encode if url else base64.b64encode
    return e(s.encode()).decode()

for name in ["github_classic", "slack_bot", "anthropic", "aws_akia", "stripe", "npm"]:
    s = TOKENS[name]()
    e = b64(s)
    P(e, f"echo {e} | base64 -d")
    e = b64(f"TOKEN={s}\n", url=True)
    P(e, f"curl https://api.example.com/ingest?blob={e}")
    e = urllib.parse.quote(s, safe="")
    pct = "".join(f"%{b:02X}" for b in s.encode())
    P(pct, f"curl 'https://api.example.com/hook?token={pct}&x=1'")
    P(pct, f"open https://example.com/redirect?to={pct}")
    u = "".join(f"\\u{ord(c):04x}" for c in s)
    P(u, '{"command":"echo ' + u + '"}')
    once = json.dumps(json.dumps({"token": s}))[1:-1]
    P(s, '{"tool_input":"' + once + '"}')
    twice = json.dumps(json.dumps(json.dumps({"env": f"GITHUB_TOKEN={s}"})))[1:-1]
    P(s, '{"outer":"' + twice + '"}')

for _ in range(4):
    user, p = "deploy", pw()
    basic = b64(f"{user}:{p}")
    P(basic, f"curl -H 'Authorization: Basic {basic}' https://ci.example.com")
    cfg = b64(json.dumps({"auths": {"ghcr.io": {"auth": b64(f"{user}:{p}")}}}))
    P(cfg, f'{{"apiVersion":"v1","kind":"Secret","type":"kubernetes.io/dockerconfigjson","data":{{".dockerconfigjson":"{cfg}"}}}}')
    P(cfg, f"kubectl patch secret regcred -p '{{\"data\":{{\".dockerconfigjson\":\"{cfg}\"}}}}'")
    pair = b64(f"{user}:{p}")
    P(pair, f"echo {pair} | base64 -d")
    P(pair, f"AUTH={pair} ./push.sh")
    k8s = b64(p)
    P(k8s, f"apiVersion: v1\\nkind: Secret\\nmetadata:\\n  name: db\\ndata:\\n  password: {k8s}\\n")
    pt = urllib.parse.quote(p, safe="")
    P(pt, f"mongodb://admin:{pt}@db.internal:27017/admin")
    P(p, f"curl -d 'username=admin&password={p}' https://login.example.com/session")

neg = []
NEG = [
    "git push --force origin main", "git status", "git log --oneline -20", "git diff HEAD~1 -- src/",
    "git checkout -b feature/redaction-engine", "git rebase -i origin/main", "git fetch --prune --tags",
    "rm -rf /tmp/x", "rm -rf node_modules dist .cache", "ls -la ~/.aws && cat ~/.aws/config",
    "npm install", "npm ci --prefer-offline", "npm run build && npm test", "npx prettier --check .",
    "cargo build --release", "cargo test -p denials-exporter -- --nocapture", "cargo clippy --all-targets -- -D warnings",
    "make -j8 all", "go test ./...", "pytest -x -q tests/", "python3 -m venv .venv && . .venv/bin/activate",
    "pip install -r requirements.txt", "poetry install --no-root", "bundle exec rake db:migrate",
    "docker build -t acme/web:1.4.2 .", "docker run -p 8080:80 -u 1000:1000 nginx", "docker compose up -d db",
    "docker login --password-stdin -u ci registry.example.com", "docker login ghcr.io", "docker ps -a --format '{{.Names}}'",
    "kubectl get pods -n prod -o wide", "kubectl get secret db-creds -n prod -o yaml", "kubectl rollout restart deploy/web",
    "kubectl logs -f deploy/api --since=10m", "helm upgrade --install web ./chart --set image.tag=v1.2.3",
    "terraform plan -out tf.plan", "terraform apply -auto-approve tf.plan", "aws s3 ls s3://acme-artifacts/releases/ --region us-east-1",
    "aws sts get-caller-identity", "gcloud auth list", "az account show",
    "ssh -p 2222 deploy@build.example.com", "ssh -i ~/.ssh/id_ed25519 deploy@build.example.com",
    "ssh-keygen -t ed25519 -f ~/.ssh/id_ed25519 -C dev@example.com", "scp dist.tar deploy@10.0.0.5:/srv",
    "sshpass -f ~/.sshpass ssh deploy@build.example.com", "sshpass -e ssh deploy@build.example.com",
    "mysql -u root -p shop", "mysql -uroot -p -h db.example.com", "mysql -h db -u app -p$MYSQL_PASSWORD app",
    "mysqldump --single-transaction -u app -p app > app.sql", "psql -h db -U app -d app -c 'select 1'",
    "PGPASSWORD=$PGPASSWORD psql -h db -U app", "PGPASSWORD=\"${PGPASSWORD}\" pg_dump app", "export DB_PASSWORD=${DB_PASSWORD}",
    "curl -u admin https://jenkins.example.com/api/json", "curl -u \"$USER:$PASS\" https://jenkins.example.com",
    "curl -fsSL https://get.docker.com | sh", "curl -s https://api.github.com/repos/acme/web | jq .stargazers_count",
    "curl -H 'Accept: application/vnd.github+json' https://api.github.com/repos/acme/web/pulls",
    "curl -H \"Authorization: Bearer $TOKEN\" https://api.example.com", "curl -H 'Authorization: Bearer ${GITHUB_TOKEN}' https://api.github.com",
    "wget -q https://example.com/file.tar.gz -O /tmp/file.tar.gz", "htpasswd -c .htpasswd admin", "htpasswd -B .htpasswd admin",
    "redis-cli -h cache.internal ping", "redis-cli -a $REDIS_PASSWORD ping", "mongosh --host db -u admin -p --authenticationDatabase admin",
    "sqlcmd -S db -U sa -P $SA_PASSWORD -Q 'select 1'", "ldapsearch -x -D cn=admin,dc=example,dc=org -W -b dc=example,dc=org",
    "zip -r dist.zip dist/", "7z x archive.7z -o/tmp/out", "openssl pkcs12 -export -in c.pem -passout env:P12_PASS -out c.p12",
    "openssl rand -hex 32", "openssl x509 -in cert.pem -noout -text", "ssh-keygen -lf ~/.ssh/id_ed25519.pub",
    "./tool --password-file /run/secrets/db", "./deploy --password $DEPLOY_PASSWORD", "./deploy --token-file ~/.config/token",
    "docker build --secret id=npmrc,src=$HOME/.npmrc .", "SSH_KEY=~/.ssh/id_rsa ./deploy.sh", "GOOGLE_APPLICATION_CREDENTIALS=/home/ci/sa.json gcloud auth list",
    "export GITHUB_TOKEN=$(gh auth token)", "export GITHUB_TOKEN=\"${{ secrets.GITHUB_TOKEN }}\"", "echo $GITHUB_TOKEN | gh auth login --with-token",
    "env | grep -i -E 'token|secret|key'", "grep -rn 'api_key' src/ | head", "grep root /etc/passwd", "cat /etc/passwd",
    "Permission to use Bash has been denied.", "PreToolUse hook block-destructive-bash denied: git push --force origin main",
    "The user doesn't want to proceed with this tool use.", "Tool use rejected: path outside the workspace",
    "toolu_01A2b3C4d5E6f7G8h9J0kLmN", "toolu_01XyZ9aBcDeFgHiJkLmNoPqR", "srvtoolu_01ABCDEFGHIJKLMNOPQRSTUV", "exec_01HZX3K9M2N4P5Q6R7S8T9V0W1",
    "msg_01D7FLoqwSr5cx2ur2kAJ8sc", "req_011CZ3ktvhNYYXpDFnV4b2bu", "job_3fa8c1d2e4b5a6f7",
    "git show 9fceb02d0ae598e95dc970b74767f19372d61af8", "git revert e3b0c44298fc1c149afbf4c8996fb92427ae41e4",
    "docker pull nginx@sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "digest: sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "sha512sum dist.tar.gz",
    "550e8400-e29b-41d4-a716-446655440000", "kubectl delete pod web-7d4b9c8f6-x2x9z", "session 6f1c2a9e-7d41-4c55-9a0e-2b6f8e1d7c44 ended",
    '{"session_id":"550e8400-e29b-41d4-a716-446655440000","transcript_path":"/home/u/.claude/projects/x.jsonl"}',
    '{"tool_use_id":"toolu_01A2b3C4d5E6f7G8h9J0kLmN","tool_name":"Bash","command":"ls -la"}',
    '{"command":"npm run build && npm test","description":"Build and test","timeout":120000}',
    '{"file_path":"/home/dev/project/src/main.rs","old_string":"let x = 1;","new_string":"let x = 2;"}',
    '{"max_tokens": 1024, "input_tokens": 12, "cache_read_input_tokens": 3}', '{"eos_token": "</s>", "pad_token": "<pad>"}',
    '{"url":"https://docs.example.com/guide?lang=en&page=2","prompt":"summarise"}', '{"pattern":"TODO|FIXME","path":"src"}',
    "/home/dev/project/src/components/Header.tsx", "/var/lib/docker/overlay2/3f1c2a9e7d414c559a0e2b6f8e1d7c44/merged",
    "/usr/local/lib/python3.12/site-packages/requests/adapters.py", "C:\\Users\\dev\\AppData\\Local\\Temp\\build.log",
    "src/redact/rules/formats.rs", "~/.kube/config", "./node_modules/.bin/eslint --fix src/",
    "https://github.com/acme/web/pull/1234/files", "https://api.example.com/v1/items?page=2&per_page=100",
    "https://example.com/search?q=rust%20regex&page=2", "https://en.wikipedia.org/wiki/Caf%C3%A9",
    "https://storage.googleapis.com/acme-builds/web/1.4.2/app.tar.gz", "git clone git@github.com:acme/web.git",
    "git clone ssh://git@github.com/acme/web.git", "postgres://db.internal:5432/app", "redis://cache.internal:6379/0",
    "build.example.com", "10.0.0.5:8080", "ip-10-0-12-34.eu-west-1.compute.internal",
    "${HOME}/.config", "${GITHUB_TOKEN}", "$AWS_SECRET_ACCESS_KEY", "${{ secrets.NPM_TOKEN }}", "{{ .Values.image.tag }}",
    "API_KEY=your-api-key-here", "echo \"API_KEY=your-api-key-here\" >> .env.example", "TOKEN=<token>", "PASSWORD=*****",
    "password reset email sent to user@example.com", "Secret key rotation is scheduled for Monday", "The API key was rotated; see https://wiki.example.com/api-keys",
    "use the --token flag or set GITHUB_TOKEN", "if password == confirm { ok() }", "let token = get_token(&config)?;",
    "pub password: String,", "const apiKey = process.env.API_KEY;", "def authenticate(username: str, password: str) -> Token:",
    "secret_key = os.environ[\"SECRET_KEY\"]", r'client = OpenAI(api_key=os.environ.get("OPENAI_API_KEY"))',
    "jq '.items[] | {name: .metadata.name, token: .spec.tokenRef}' out.json", "self.api_key = api_key",
    "echo aGVsbG8gd29ybGQgZnJvbSB0aGUgYnVpbGQgYm90 | base64 -d", "echo 'hello world' | base64",
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "kubectl get secret regcred -o jsonpath='{.data.\\.dockerconfigjson}' | base64 -d",
    '{\\"command\\":\\"ls -la /tmp\\",\\"description\\":\\"List files\\"}', '{"tool_input":"{\\"command\\":\\"git status\\"}"}',
    "CREATE INDEX idx_users_email ON users(email);", "SELECT id, name FROM users WHERE id = 42;",
    "Error: ENOENT: no such file or directory, open '/app/config.json'", "warning: unused variable `token`",
    "thread 'main' panicked at src/main.rs:12:5", "FAILED tests/test_auth.py::test_login - AssertionError",
    "npm ERR! code E401 Unable to authenticate", "fatal: Authentication failed for 'https://github.com/acme/web.git/'",
    "apiVersion: apps/v1\\nkind: Deployment\\nmetadata:\\n  name: web\\nspec:\\n  replicas: 3",
    "SG.apply(x)", "hf_hub_download(repo_id='bert-base-uncased')", "npm_config_cache=/tmp/npm", "sk_test_mode=true",
    "AKIAxxxx is the prefix of an access key id", "ghp_ is GitHub's prefix for classic tokens",
    "mcp__github__create_issue", "mcp__slack__post_message", "mcp__filesystem__read_file", "mcp__x__send_message",
    "WebFetch(https://docs.anthropic.com/en/docs/claude-code)", "Read(/home/dev/project/README.md)",
    "PRIMARY_KEY=id", "SORT_KEY=created_at", "CACHE_KEY=v2", "NODE_ENV=production", "TOKEN_TTL=3600",
    "SECRET_NAME=db-creds", "API_URL=https://api.example.com/v2", "PASSWORD_MIN_LENGTH=12", "KEY_PATH=/etc/ssl/private/server.key",
    "AUTH_MODE=oauth", "export TOKEN_FILE=/run/secrets/token", "SECRET_ARN=arn:aws:secretsmanager:eu-west-1:123456789012:secret:db",
    "echo \"$DB_PASSWORD\" | docker login -u ci --password-stdin", "cat ~/.token | gh auth login --with-token",
    "passwd --stdin deploy < /run/secrets/pw", "docker run -e POSTGRES_PASSWORD_FILE=/run/secrets/pg postgres:16",
    "helm install db bitnami/postgresql --set auth.existingSecret=db-creds", "DATABASE_URL=postgres://app@db.internal:5432/app",
    "stringData:\\n  username: app\\n", "mysql --defaults-extra-file=~/.my.cnf -e 'select 1'",
    "curl --netrc-file ~/.netrc https://api.example.com", "git config --global credential.helper store",
    "aws configure set region eu-west-1", "az keyvault secret show --name db-password --vault-name kv-prod",
    "vault kv get -field=password secret/db", "op read op://prod/db/password", "gh secret list -R acme/web",
    "kubectl create secret generic db --from-file=password=./pw.txt", "sops -d secrets.enc.yaml > /dev/null",
    "SIGNING_KEY=Production", "SORT_KEY=Name", "TOKEN=aaaaaaaaaaaaaaaa", "API_KEY=None", "SECRET=000000000000",
    "echo cGF0aCB0byB0aGUgYnVpbGQgYXJ0aWZhY3Rz | base64 -d", "curl 'https://example.com/?q=%E2%9C%93%20ok&lang=de'",
    '{"command":"echo \\u0068\\u0065\\u006c\\u006c\\u006f"}', "git log --format='%H %an %s' -5",
]
neg.extend(NEG)
# Word-ish negatives from a small grammar: tool, verb, path/host/id.
TOOLS = ["git", "npm", "cargo", "docker", "kubectl", "ls", "cat", "grep", "curl", "make", "python3", "go", "helm", "terraform", "aws"]
VERBS = ["status", "build", "test", "run", "get", "apply", "diff", "list", "describe", "logs", "push", "pull", "init", "plan"]
ARGS = ["src/main.rs", "./dist", "/tmp/out.log", "web", "api", "-n prod", "--dry-run", "-o json", "https://example.com/health",
        "origin main", "--verbose", "-v", "8080:80", "build.example.com", "README.md", "--since 1h", "HEAD~3", "-f values.yaml"]
while len(neg) < 500:
    uid = "-".join(r(HEX, n) for n in (8, 4, 4, 4, 12))
    sha = r(HEX, 40)
    extra = rng.choice(["", f" {uid}", f" {sha}", f" toolu_01{r(AN, 22)}", f" # {rng.choice(VERBS)} done"])
    neg.append(f"{rng.choice(TOOLS)} {rng.choice(VERBS)} {rng.choice(ARGS)} {rng.choice(ARGS)}{extra}")

# Quoted passwords holding shell separators (& ; |) stay inside the command they were given to
# (no random draw here, so the cases above stay as they were).
for t in ["sshpass -p '{}' ssh deploy@build.example.com", "docker login -u ci -p '{}' ghcr.io && echo ok",
          'mysql -u root -p"{}" -h db.internal']:
    for s in ["Fake&Tr0ub4dor!3", "Fake;pw|Zq9&x!"]:
        P(s, t.replace("{}", s))

header = "# generated by generate.py; FAKE secrets only. Format: SECRET<TAB>TEXT\n"
with open("positives.txt", "w") as f:
    f.write(header + "\n".join(pos) + "\n")
with open("negatives.txt", "w") as f:
    f.write("# generated by generate.py; each line must survive redaction unchanged\n" + "\n".join(neg) + "\n")
print(len(pos), "positives,", len(neg), "negatives")
