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

{{- define "acm-runtime.httpParticipantSelectorLabels" -}}
app.kubernetes.io/name: {{ include "acm-runtime.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: participant-http
{{- end -}}

{{- define "acm-runtime.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{- define "acm-runtime.kafkaTlsSecretName" -}}
{{- .Values.kafka.tls.existingSecret | default (printf "%s-kafka-tls" (include "acm-runtime.fullname" .)) -}}
{{- end -}}

{{/* "true" when a Kafka TLS Secret is mounted: the chart's (a CA or a client certificate given) or yours. */}}
{{- define "acm-runtime.kafkaTlsMounted" -}}
{{- $tls := .Values.kafka.tls -}}
{{- if or $tls.existingSecret $tls.ca $tls.cert $tls.key -}}true{{- end -}}
{{- end -}}

{{/* "true" when the mounted Secret holds a client certificate and key. */}}
{{- define "acm-runtime.kafkaClientCertificate" -}}
{{- $tls := .Values.kafka.tls -}}
{{- if or (and $tls.existingSecret $tls.clientCertificate) (and (not $tls.existingSecret) (or $tls.cert $tls.key)) -}}true{{- end -}}
{{- end -}}

{{/* The Kafka settings of the ConfigMap, which the runtime reads through envFrom. */}}
{{- define "acm-runtime.kafkaSecuritySettings" -}}
{{- $kafka := .Values.kafka -}}
KAFKA_SECURITY_PROTOCOL: {{ $kafka.securityProtocol | quote }}
{{- with $kafka.sasl.mechanism }}
KAFKA_SASL_MECHANISM: {{ . | quote }}
{{- end }}
{{- if and (include "acm-runtime.kafkaTlsMounted" .) (or $kafka.tls.existingSecret $kafka.tls.ca) }}
KAFKA_SSL_CA_FILE: /etc/acm/kafka-tls/ca.crt
{{- end }}
{{- if include "acm-runtime.kafkaClientCertificate" . }}
KAFKA_SSL_CERT_FILE: /etc/acm/kafka-tls/tls.crt
KAFKA_SSL_KEY_FILE: /etc/acm/kafka-tls/tls.key
{{- end }}
{{- end -}}

{{/* The Kafka credentials the chart's Secret holds (key: value), also referenced one by one by the simulator. */}}
{{- define "acm-runtime.kafkaSecretKeys" -}}
{{- $kafka := .Values.kafka -}}
{{- with $kafka.sasl.jaasConfig }}
KAFKA_SASL_JAAS_CONFIG: {{ . | quote }}
{{- end }}
{{- with $kafka.sasl.username }}
KAFKA_SASL_USERNAME: {{ . | quote }}
{{- end }}
{{- with $kafka.sasl.password }}
KAFKA_SASL_PASSWORD: {{ . | quote }}
{{- end }}
{{- with $kafka.tls.keyPassword }}
KAFKA_SSL_KEY_PASSWORD: {{ . | quote }}
{{- end }}
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

{{/* OpenTelemetry tracing (README "Tracing"), shared by the runtime and the simulator; only the settings given. */}}
{{- define "acm-runtime.tracingSettings" -}}
{{- $t := .Values.tracing -}}
{{- range $name, $value := dict "OTEL_TRACES_EXPORTER" $t.exporter "OTEL_EXPORTER_OTLP_ENDPOINT" $t.otlpEndpoint "OTEL_EXPORTER_OTLP_PROTOCOL" $t.otlpProtocol "OTEL_TRACES_SAMPLER" $t.sampler "OTEL_TRACES_SAMPLER_ARG" $t.samplerArg "OTEL_PROPAGATORS" $t.propagators }}
{{- if ne (toString $value) "" }}
{{ $name }}: {{ $value | quote }}
{{- end }}
{{- end }}
{{- end -}}
