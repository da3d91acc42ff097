{{/* Chart name, truncated to 63 characters (DNS label). */}}
{{- define "loopgate.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Release-qualified name. */}}
{{- define "loopgate.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "loopgate.selectorLabels" -}}
app.kubernetes.io/name: {{ include "loopgate.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "loopgate.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "loopgate.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: loopgate
{{- end }}

{{- define "loopgate.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "loopgate.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "loopgate.secretName" -}}
{{- default (printf "%s-secrets" (include "loopgate.fullname" .)) .Values.secrets.existingSecret }}
{{- end }}

{{- define "loopgate.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* Refuse values that cannot work, with a message saying what to change. */}}
{{- define "loopgate.validate" -}}
{{- if and (not .Values.qdrant.url) (or .Values.autoscaling.enabled (gt (int .Values.replicaCount) 1)) }}
{{- fail "qdrant.url is required with more than one replica or autoscaling: the embedded Qdrant engine is single-process (set qdrant.url to your Qdrant server/cluster, or replicaCount=1 and autoscaling.enabled=false)" }}
{{- end }}
{{- if and .Values.autoscaling.enabled (lt (int .Values.autoscaling.maxReplicas) (int .Values.replicaCount)) }}
{{- fail "autoscaling.maxReplicas must be >= replicaCount (the HPA's minReplicas)" }}
{{- end }}
{{- if and .Values.ingest.enabled (not .Values.ingest.docsClaim) }}
{{- fail "ingest.enabled needs ingest.docsClaim: a PersistentVolumeClaim holding the documents" }}
{{- end }}
{{- end }}

{{/* The gateway/ingest container's shared parts: image, env, security, mounts. */}}
{{- define "loopgate.containerCommon" -}}
image: {{ include "loopgate.image" . | quote }}
imagePullPolicy: {{ .Values.image.pullPolicy }}
envFrom:
  - configMapRef:
      name: {{ include "loopgate.fullname" . }}-settings
  - secretRef:
      name: {{ include "loopgate.secretName" . }}
securityContext:
  {{- toYaml .Values.securityContext | nindent 2 }}
{{- end }}

{{- define "loopgate.commonMounts" -}}
- name: tmp
  mountPath: /tmp
- name: data
  mountPath: /data
{{- if .Values.models.existingClaim }}
- name: models
  mountPath: /models
  readOnly: true
  {{- with .Values.models.subPath }}
  subPath: {{ . }}
  {{- end }}
{{- end }}
{{- end }}

{{- define "loopgate.commonVolumes" -}}
- name: tmp
  emptyDir: {}
- name: data
  emptyDir: {}
{{- if .Values.models.existingClaim }}
- name: models
  persistentVolumeClaim:
    claimName: {{ .Values.models.existingClaim }}
    readOnly: true
{{- end }}
{{- end }}
