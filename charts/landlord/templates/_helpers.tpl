{{/* landlord.image is repository:tag, or repository@digest when a digest is set. */}}
{{- define "landlord.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- end }}

{{/* landlord.celList spells a list of strings as a CEL list literal, as the controller does. */}}
{{- define "landlord.celList" -}}
[{{ range $i, $v := . }}{{ if $i }}, {{ end }}{{ $v | quote }}{{ end }}]
{{- end }}

{{/* landlord.selector are the labels of the controller's pods. */}}
{{- define "landlord.selector" -}}
app.kubernetes.io/name: landlord-controller
{{- end }}
