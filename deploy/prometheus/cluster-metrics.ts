// The cluster exporters' series the dashboard uses, listed so the metric-name checks know the services do not
// export them.

/**
 * Series the dashboard reads from the cluster's standard exporters, not from the services: each with the exporter
 * that writes it. Outside a cluster (the e2e Prometheus suite) nothing writes them.
 */
export const clusterMetrics: Record<string, string> = {
  container_cpu_usage_seconds_total: 'cAdvisor (kubelet)',
  container_memory_working_set_bytes: 'cAdvisor (kubelet)',
  kube_pod_info: 'kube-state-metrics',
  kube_persistentvolumeclaim_info: 'kube-state-metrics',
  kube_pod_spec_volumes_persistentvolumeclaims_info: 'kube-state-metrics',
  kube_horizontalpodautoscaler_status_current_replicas: 'kube-state-metrics',
};
