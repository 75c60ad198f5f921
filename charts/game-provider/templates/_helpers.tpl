{{/*
Names, labels and shared pieces of the game-provider chart (bitnami conventions, without the
`common` library chart so that the chart renders offline).
*/}}

{{- define "game-provider.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "game-provider.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "game-provider.namespace" -}}
{{- default .Release.Namespace .Values.namespaceOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "game-provider.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels of every object. */}}
{{- define "game-provider.labels" -}}
helm.sh/chart: {{ include "game-provider.chart" . }}
{{ include "game-provider.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: game-provider
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* The two labels that never change for a release (selectors add a component). */}}
{{- define "game-provider.selectorLabels" -}}
app.kubernetes.io/name: {{ include "game-provider.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/*
The `annotations:` block of an object's metadata (commonAnnotations plus `extra`), nothing when
both are empty: `{{- include "game-provider.annotations" (dict "extra" $x "context" $) }}`.
*/}}
{{- define "game-provider.annotations" -}}
{{- $all := merge (dict) (.extra | default (dict)) (.context.Values.commonAnnotations | default (dict)) -}}
{{- if $all }}
  annotations:
    {{- toYaml $all | nindent 4 }}
{{- end }}
{{- end -}}

{{/* Label the API pods let in when networkPolicy.allowExternal is false. */}}
{{- define "game-provider.clientLabel" -}}
{{ include "game-provider.fullname" . }}-client: "true"
{{- end -}}

{{- define "game-provider.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "game-provider.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* registry/repository:tag or @digest, with global.imageRegistry first: (dict "image" $img "context" $). */}}
{{- define "game-provider.imageRef" -}}
{{- $registry := .image.registry -}}
{{- if .context.Values.global.imageRegistry }}{{ $registry = .context.Values.global.imageRegistry }}{{ end -}}
{{- $ref := .image.repository -}}
{{- if $registry }}{{ $ref = printf "%s/%s" $registry $ref }}{{ end -}}
{{- if .image.digest -}}
{{- printf "%s@%s" $ref .image.digest -}}
{{- else -}}
{{- printf "%s:%s" $ref (toString (.image.tag | default .context.Chart.AppVersion)) -}}
{{- end -}}
{{- end -}}

{{- define "game-provider.image" -}}
{{- include "game-provider.imageRef" (dict "image" .Values.image "context" .) -}}
{{- end -}}

{{/* The pod's `imagePullSecrets:` (global and image), nothing when none: `{{- include "game-provider.imagePullSecrets" (dict "indent" 6 "context" $) }}`. */}}
{{- define "game-provider.imagePullSecrets" -}}
{{- $secrets := concat (.context.Values.global.imagePullSecrets | default list) (.context.Values.image.pullSecrets | default list) | uniq -}}
{{- if $secrets }}
{{- $block := list }}
{{- range $secrets }}{{ $block = append $block (dict "name" .) }}{{ end }}
{{- dict "imagePullSecrets" $block | toYaml | nindent (int .indent) }}
{{- end }}
{{- end -}}

{{/* One env entry read from existingSecret: (dict "name" "CRON_SECRET" "key" "cronSecret" "context" $). */}}
{{- define "game-provider.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ required "existingSecret is required: the name of a Secret with DATABASE_URL, REDIS_URL, SECRET_KEY, ADMIN_TOKEN and CRON_SECRET" .context.Values.existingSecret }}
      key: {{ get .context.Values.secretKeys .key }}
{{- end -}}

{{/* Every secret variable of the provider process, by reference. */}}
{{- define "game-provider.secretEnvAll" -}}
{{ include "game-provider.secretEnv" (dict "name" "DATABASE_URL" "key" "databaseUrl" "context" .) }}
{{ include "game-provider.secretEnv" (dict "name" "REDIS_URL" "key" "redisUrl" "context" .) }}
{{ include "game-provider.secretEnv" (dict "name" "SECRET_KEY" "key" "secretKey" "context" .) }}
{{ include "game-provider.secretEnv" (dict "name" "ADMIN_TOKEN" "key" "adminToken" "context" .) }}
{{ include "game-provider.secretEnv" (dict "name" "CRON_SECRET" "key" "cronSecret" "context" .) }}
{{- end -}}

{{/* preStop pause + SHUTDOWN_DRAIN_MS + SHUTDOWN_GRACE_MS + 5 s for closing pools, unless overridden. */}}
{{- define "game-provider.terminationGracePeriodSeconds" -}}
{{- $s := .Values.shutdown -}}
{{- $needed := add (int $s.preStopSleepSeconds) (div (add (int $s.drainMs) 999) 1000) (div (add (int $s.graceMs) 999) 1000) 5 -}}
{{- if .Values.terminationGracePeriodSeconds -}}
{{- if lt (int .Values.terminationGracePeriodSeconds) (int (sub $needed 5)) -}}
{{- fail (printf "terminationGracePeriodSeconds %v is shorter than shutdown.preStopSleepSeconds + drainMs + graceMs (%d s)" .Values.terminationGracePeriodSeconds (sub $needed 5)) -}}
{{- end -}}
{{- .Values.terminationGracePeriodSeconds -}}
{{- else -}}
{{- $needed -}}
{{- end -}}
{{- end -}}

{{/* A security context without the chart's `enabled` switch. */}}
{{- define "game-provider.securityContext" -}}
{{- omit . "enabled" | toYaml -}}
{{- end -}}

{{/* In-cluster base URL of the API Service (the CronJobs call it). */}}
{{- define "game-provider.apiUrl" -}}
{{- printf "http://%s.%s.svc.%s:%v" (include "game-provider.fullname" .) (include "game-provider.namespace" .) .Values.clusterDomain .Values.service.ports.http -}}
{{- end -}}

{{/*
Name of a profile's CronJob: <fullname>-wr-<operatorId made DNS-safe>-<8 hex of its hash>, at
most 52 characters (a Job name adds 11). The hash keeps two ids apart that sanitise alike.
*/}}
{{- define "game-provider.walletRetriesName" -}}
{{- $id := .operatorId -}}
{{- $safe := regexReplaceAll "-+" (regexReplaceAll "[^a-z0-9-]+" (lower $id) "-") "-" | trimAll "-" -}}
{{- $prefix := include "game-provider.fullname" .context | trunc 20 | trimSuffix "-" -}}
{{- printf "%s-wr-%s" $prefix ($safe | trunc (int (sub 52 (add (len $prefix) 13))) | trimSuffix "-") | trimSuffix "-" -}}-{{ sha256sum $id | trunc 8 }}
{{- end -}}

{{/* The query of a profile's call: operatorId URL-encoded (a space as %20, never `+`), limit. */}}
{{- define "game-provider.walletRetriesQuery" -}}
{{- printf "operatorId=%s&limit=%v" (urlquery .profile.operatorId | replace "+" "%20") (.profile.limit | default .context.Values.walletRetries.limit) -}}
{{- end -}}

{{/* The Service Prometheus scrapes (its name is the `job` label under a ServiceMonitor). */}}
{{- define "game-provider.metricsServiceName" -}}
{{- if eq .Values.service.type "ClusterIP" -}}
{{- include "game-provider.fullname" . -}}
{{- else -}}
{{- printf "%s-metrics" (include "game-provider.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/* Checks across values that values.schema.json cannot express; included by deployment.yaml. */}}
{{- define "game-provider.validate" -}}
{{- if and .Values.metrics.enabled (eq (int .Values.containerPorts.http) (int .Values.containerPorts.metrics)) -}}
{{- fail "containerPorts.metrics must differ from containerPorts.http: /metrics has its own listener" -}}
{{- end -}}
{{- if and .Values.metrics.enabled (eq .Values.service.type "ClusterIP") (eq (int .Values.service.ports.http) (int .Values.service.ports.metrics)) -}}
{{- fail "service.ports.metrics must differ from service.ports.http" -}}
{{- end -}}
{{- if and .Values.autoscaling.hpa.enabled (lt (int .Values.autoscaling.hpa.maxReplicas) (int .Values.autoscaling.hpa.minReplicas)) -}}
{{- fail "autoscaling.hpa.maxReplicas must be at least autoscaling.hpa.minReplicas" -}}
{{- end -}}
{{- if and .Values.autoscaling.hpa.enabled (not .Values.autoscaling.hpa.targetCPU) (not .Values.autoscaling.hpa.targetMemory) -}}
{{- fail "autoscaling.hpa needs targetCPU or targetMemory" -}}
{{- end -}}
{{- if and (or .Values.metrics.serviceMonitor.enabled .Values.metrics.prometheusRule.enabled) (not .Values.metrics.enabled) -}}
{{- fail "metrics.serviceMonitor and metrics.prometheusRule need metrics.enabled" -}}
{{- end -}}
{{- end -}}
