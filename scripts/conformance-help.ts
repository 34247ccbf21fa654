/** `npm run conformance -- --help`: what each checkout is measured on. */
export const HELP = `Measures the gate's admission layer against Kubernetes' own test data, its
reading of a source against Argo CD's, and the cluster facts' Talos tables
against Talos' own source, in checkouts you fetch yourself (nothing upstream
is committed):
  --pod-security DIR  k8s.io/pod-security-admission: every fixture of
                      test/testdata/{baseline,restricted}/v1.NN/{pass,fail}
  --apiserver DIR     k8s.io/apiserver: the CEL library function list of
                      pkg/cel/library/library_compatibility_test.go, the
                      cases of pkg/cel/library/*_test.go, and the request
                      info tests (pkg/endpoints/request/requestinfo_test.go:
                      what the RBAC authorizer is asked of a program's request)
  --apiextensions DIR k8s.io/apiextensions-apiserver: TestValidationExpressions
                      (pkg/apiserver/schema/cel/validation_test.go),
                      TestCelCostStability's rules (celcoststability_test.go),
                      TestValidateCustomResourceDefinition,
                      TestSelectableFields and
                      Test_validateDeprecationWarning
                      (pkg/apis/apiextensions/validation/validation_test.go),
                      TestDefault and TestPruneNonNullableNulls...
                      (pkg/apiserver/schema/defaulting), and TestPrune
                      (pkg/apiserver/schema/pruning)
  --argocd DIR        argoproj/argo-cd at the pinned tag: gitops-engine's
                      hook tests (gitops-engine/pkg/sync/hook), judged
                      through the gate's reading of hooks, and its sort
                      of a sync's tasks (sync_tasks_test.go), the account a
                      sync impersonates (controller/sync_test.go), the
                      symlinks the repo-server refuses (util/app/path/
                      path_test.go on its testdata), what
                      an AppProject permits (pkg/apis/application/
                      v1alpha1/types_test.go, util/argo/argo_test.go), an
                      ApplicationSet's templates and generators (applicationset/
                      utils/utils_test.go, generators/git_test.go and
                      list_test.go; Go templates through the pinned Helm), what
                      its controller refuses of what they make (controllers/
                      applicationset_controller_test.go), the built-in
                      health scripts on their own tests (resource_
                      customizations, run by the gate's Lua), and the
                      repo-server's tests (reposerver/repository/
                      repository_test.go and its testdata/), judged through
                      the gate's reading of a source; its line is printed last
  --talos DIR         siderolabs/talos at a release: the cluster facts'
                      talosUpgrades and talosKubernetes rows against each
                      minor's pkg/machinery/compatibility/talos1NN package,
                      the talosEtcd row of its own minor against
                      DefaultEtcdVersion, and the cases of
                      TestTalosUpgradeCompatibility1NN and
                      TestKubernetesCompatibility1NN of the minors with a row
  --go-kubernetes DIR siderolabs/go-kubernetes at the version that Talos
                      pins: talosctl upgrade-k8s' path list
                      (kubernetes/upgrade/path.go) against the diff's
                      judgement of a Kubernetes move
  --yaml-test-suite DIR
                      yaml/yaml-test-suite's data branch: every in.yaml,
                      read by the gate's fast manifest reader against the
                      yaml library (the same objects and places, or left
                      to it; an input the specification refuses, left)
  --yaml-test-matrix DIR
                      perlpunk/yaml-test-matrix's gh-pages branch: every
                      suite input, read by the gate (the yaml library, with
                      go-yaml's leniency and refusals) against go-yaml v2's
                      own verdict, which kubectl, Argo CD and Helm read with
  --apimachinery DIR  k8s.io/apimachinery: the name and value rules of
                      pkg/util/validation/validation_test.go (DNS labels
                      and subdomains, qualified names, label values, port
                      names, ConfigMap keys, env names), of ip_test.go
                      (IPs and CIDRs of legacy fields), and the label and
                      annotation maps of TestValidateLabels and
                      TestValidateAnnotations, each value; and every
                      strategic merge patch pkg/util/strategicpatch/
                      patch_test.go applies (as an ApplicationSet's
                      templatePatch is applied), on its MergeItem schema;
                      and pkg/api/resource/quantity_test.go's quantities,
                      parsed and decoded; and pkg/fields/selector_test.go's
                      field selectors, split, unescaped and parsed as the
                      API server reads a list's, and pkg/labels/
                      selector_test.go's label selectors, lexed, parsed
                      and read back
  --kube-openapi DIR  k8s.io/kube-openapi: the formats a custom resource's
                      values are held to, through the schema layer's CRD
                      validator: pkg/validation/validate/fixtures/formats
                      and pkg/validation/strfmt's format tests, each value;
                      and the JSON Schema Test Suite its validator runs
                      (fixtures/jsonschema_suite), where a CRD can hold
                      the schema
  --falco-libs DIR    falcosecurity/libs: each condition of libsinsp's parser
                      tests (userspace/libsinsp/test/filter_parser.ut.cpp),
                      accepted or refused by the port that reads the tuning
  --falco DIR         falcosecurity/falco at the sensor's version: each
                      rules file of its loader tests (unit_tests/engine/
                      test_rule_loader.cpp), loaded or refused by the
                      reading of the tuning (reader, exceptions, lists,
                      conditions, macros); and each call of its plugin
                      requirement tests (test_plugin_requirements.cpp)
  --cert-manager DIR  cert-manager/cert-manager: the Certificate rows of
                      internal/apis/certmanager/validation/certificate_test.go
                      (TestValidateCertificate, TestValidateDuration) and the
                      Issuer rows of issuer_test.go (ACME, its HTTP-01 and
                      DNS-01 solvers, CA, Vault, Venafi), each judged as the
                      cluster's cert-manager webhook judges it; and its
                      solver picker's (pkg/util/solverpicker), each row's
                      solver picked as closure-acme-solver picks it
  --external-secrets DIR
                      external-secrets/external-secrets: the ExternalSecret
                      rows of apis/externalsecrets/v1/externalsecret_validator
                      _test.go and the store's refresh interval rows
                      (secretstore_types_test.go), each judged as the
                      cluster's External Secrets webhook judges it; and the
                      templates of runtime/template/v2's tests, each parsed
                      as its template engine parses it
  --metallb DIR       metallb/metallb: the TestParse rows of
                      internal/config/config_test.go, every kind, each
                      parsed as the cluster's MetalLB controller parses it,
                      and validation_test.go's rows for the BGP modes;
                      and internal/allocator/allocator_test.go's
                      TestAssignment and TestBuggyIPs steps, run in order
                      on the port of MetalLB's allocator
  --go DIR            a Go source tree (golang/go, or a distribution's
                      source package, Go 1.19 or later): text/template's
                      parser tests (src/text/template/parse/parse_test.go:
                      parseTests, errorTests, numberTests), each template
                      parsed by the gate's port of Go's parser, which the
                      prometheus-operator's webhook runs on every alert's
                      labels and annotations
  --prometheus DIR    prometheus/prometheus: the PromQL parser's tests
                      (promql/parser/parse_test.go, testExpr: whether each
                      input parses) and the rule file tests (model/rulefmt:
                      the testdata files and TestTemplateParsing), each
                      judged as the prometheus-operator's webhook judges a
                      PrometheusRule
  --prometheus-operator DIR
                      prometheus-operator/prometheus-operator: its webhook's
                      PrometheusRule tests (pkg/admission/admission_test.go
                      and its golden reviews), each judged by the gate's
                      port of the webhook, and its relabel rule validator's
                      (pkg/prometheus/validation/validator_test.go), each
                      rule judged as the operator judges a monitor's; and
                      its configuration generator's tests
                      (pkg/prometheus/promcfg_test.go with testdata/), each
                      row's Prometheus and monitors read as its driver builds
                      them, the discoveries and Alertmanagers the gate reads
                      against those of the golden file
  --component-helpers DIR
                      kubernetes/component-helpers: the scheduler's node
                      affinity and taint tests (scheduling/corev1/nodeaffinity,
                      scheduling/corev1/helpers_test.go) and the kubelet's
                      sysctl namespace tests (node/util/sysctl), each given to
                      the gate's port of the same function
  --kubelet DIR       kubernetes/kubernetes (a sparse checkout of
                      pkg/kubelet/sysctl and
                      third_party/forked/golang/expansion is enough): the
                      kubelet's sysctl allowlist tests (allowlist_test.go),
                      each pattern list and each pod sysctl refused or
                      admitted as the kubelet and the API server refuse it;
                      and its $(NAME) expansion tests (expand_test.go), each
                      value expanded as the kubelet sets a variable
  --kubeconform DIR   yannh/kubeconform: its acceptance tests
                      (acceptance.bats over fixtures/), each run as the
                      gate's command line (exit, counts, verdicts)
  --rook DIR          rook/rook at the deployed tag: its pool validation
                      tests (pkg/operator/ceph/pool/validate_test.go,
                      TestValidatePool), each pool refused or created as
                      the operator's validatePool decides
  --cron DIR          robfig/cron at v3.0.1, the parser the API server
                      reads CronJob schedules with: its parser tests
                      (parser_test.go), each range, field, bit set,
                      schedule and error as the parser makes it
  --blackbox-exporter DIR
                      prometheus/blackbox_exporter at the deployed tag:
                      its configuration tests (config/config_test.go and
                      config/testdata), each file loaded or refused with
                      the exporter's words, and its Accept-Encoding and
                      CEL rows
  --loki DIR          grafana/loki at the tag the repository's reference was
                      read at: its own configuration files (cmd/loki, the
                      docs' examples), each of which Loki loads, decoded
                      against that reference; and whether the reference is
                      what the checkout's configuration reference lists
  --alertmanager DIR  prometheus/alertmanager at the deployed tag: its
                      configuration tests (config/config_test.go and
                      config/testdata), each configuration loaded or
                      refused with Alertmanager's words; its classic
                      matchers parser's (pkg/labels/parse_test.go); its
                      inhibition rule tests (inhibit/inhibit_test.go)
  --tempo DIR         grafana/tempo at the tag the repository's reference was
                      read at: its example configurations, each of which
                      Tempo loads, and whether the reference is the
                      checkout's manifest
  --alloy DIR         grafana/alloy at the tag the alloy chart runs: its
                      parser's tests (syntax/parser/testdata), each valid
                      file parsed clean and each other one with exactly
                      the errors it expects; its decoder's tests
                      (syntax/vm/vm_block_test.go), each input against its
                      struct's schema, structural errors in scope; its
                      expression tests (syntax/vm/vm_test.go,
                      vm_stdlib_test.go), each expression worked out by
                      the gate's evaluator against the value it expects;
                      and its relabelling rules' tests (internal/component/
                      common/relabel/relabel_test.go), each rule through
                      the gate's port of relabel.Config.Validate
  --traefik DIR       traefik/traefik at the tag the repository's reference
                      was read at: every flag of its docs' CLI tabs, each
                      of which Traefik takes, held to the reference; and
                      whether the reference is the checkout's table
  --kubernetes 1.NN   the version to measure at (default: the cluster facts')
  --every-policy-version
                      with --pod-security: the fixtures of every policy
                      version from v1.0 to that one, each at its own, with
                      a line per version and their total
Prints agreement per control and per library, then each disagreement.
Exit status: 0 measured (agreement is a figure, not a verdict), 1 a checkout
cannot be read, 2 a usage error. Reads no environment variables.`;

/** The upstream checkouts the command measures against, in the order its usage and its usage error name them. */
export const CHECKOUTS = [
  'pod-security',
  'apiserver',
  'apiextensions',
  'apimachinery',
  'kube-openapi',
  'argocd',
  'talos',
  'go-kubernetes',
  'yaml-test-suite',
  'yaml-test-matrix',
  'falco-libs',
  'falco',
  'cert-manager',
  'external-secrets',
  'metallb',
  'go',
  'prometheus',
  'prometheus-operator',
  'component-helpers',
  'kubelet',
  'kubeconform',
  'rook',
  'cron',
  'blackbox-exporter',
  'loki',
  'alertmanager',
  'tempo',
  'alloy',
  'traefik',
] as const; /** One of the checkouts the command takes, by its flag. */
export type Checkout = (typeof CHECKOUTS)[number];
