{{/* Names, labels and the probe command shared by the chart's templates. */}}

{{- define "acm-runtime.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "acm-runtime.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "acm-runtime.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "acm-runtime.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "acm-runtime.selectorLabels" -}}
app.kubernetes.io/name: {{ include "acm-runtime.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: runtime
{{- end -}}

{{- define "acm-runtime.simulatorSelectorLabels" -}}
app.kubernetes.io/name: {{ include "acm-runtime.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: simulator
{{- end -}}

{{- define "acm-runtime.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{- define "acm-runtime.secretName" -}}
{{- .Values.existingSecret | default (include "acm-runtime.fullname" .) -}}
{{- end -}}

{{/*
A probe of one actuator path. With HTTP Basic on, kubelet cannot send credentials held in a Secret, so the
probe runs node (the image's only tool) with RUNTIME_USER / RUNTIME_PASSWORD from the container's environment.
Usage: include "acm-runtime.probe" (dict "root" . "path" "/actuator/health/liveness" "timing" .Values.probes.liveness)
*/}}
{{- define "acm-runtime.probe" -}}
httpGet:
  path: {{ printf "/onap/policy/clamp/acm%s" .path }}
  port: http
{{ toYaml .timing }}
{{- end -}}
