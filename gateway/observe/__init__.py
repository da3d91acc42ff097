"""What the gateway shows about itself: the route log, its statistics and Prometheus metrics.

- :mod:`gateway.observe.routelog` – where finished route records go (a capped Redis stream, or
  an in-process ring buffer);
- :mod:`gateway.observe.recorder` – :class:`RouteRecorder`, the router's sink (log + metrics);
- :mod:`gateway.observe.stats` – the dashboard's figures over a window of route records;
- :mod:`gateway.observe.metrics` – :class:`GatewayMetrics`, the Prometheus families.

The record itself is :class:`gateway.routing.RouteRecord`.
"""

from gateway.observe.metrics import LATENCY_BUCKETS_S, METRIC_NAMES, GatewayMetrics
from gateway.observe.recorder import CALLER, RouteRecorder
from gateway.observe.route_query import RouteQuery
from gateway.observe.routelog import MemoryRouteLog, RedisRouteLog, RouteLog, build_route_log
from gateway.observe.stats import compute_stats, pick_bucket

__all__ = [
    "CALLER",
    "LATENCY_BUCKETS_S",
    "METRIC_NAMES",
    "GatewayMetrics",
    "MemoryRouteLog",
    "RedisRouteLog",
    "RouteLog",
    "RouteQuery",
    "RouteRecorder",
    "build_route_log",
    "compute_stats",
    "pick_bucket",
]
