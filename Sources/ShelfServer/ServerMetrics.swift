#if Server
    internal import Foundation
    internal import HTTPTypes
    internal import Hummingbird
    internal import HummingbirdCore
    internal import Logging
    internal import NIOCore
    internal import Prometheus
    internal import Synchronization

    /// The service's metrics, in a Prometheus registry of its own (no process-wide metrics
    /// system is bootstrapped, so a service that mounts the routes keeps its own):
    /// requests by route and status, open live streams and change streams, distinct live
    /// queries, and how long a live window took from its store publishing it to its bytes
    /// being written.
    public final class ServerMetrics: Sendable {
        private let registry = PrometheusCollectorRegistry()
        private let openStreams: Gauge
        private let openChangeStreams: Gauge
        private let distinctQueries: Gauge
        private let delivery: DurationHistogram
        /// Open live streams by query, for the distinct-query gauge.
        private let queries = Mutex<[String: Int]>([:])

        init() {
            openStreams = registry.makeGauge(
                descriptor: Self.name("live_streams", help: "Open live item streams."))
            openChangeStreams = registry.makeGauge(
                descriptor: Self.name("change_streams", help: "Open change streams (/api/changes)."))
            distinctQueries = registry.makeGauge(
                descriptor: Self.name(
                    "live_queries", help: "Distinct live queries (query and limit) among the open streams."))
            delivery = registry.makeDurationHistogram(
                descriptor: Self.name(
                    "live_delivery", unit: "seconds",
                    help: "From a live window's publication by the store to its event written to the client."),
                buckets: [
                    .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
                    .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
                ])
        }

        /// `shelf_NAME[_UNIT]`.
        private static func name(_ name: String, unit: String = "", help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "shelf", metricName: name, unitName: unit, helpText: help)
        }

        /// The request counters made so far, by route, method and status: the registry's
        /// `makeCounter` builds the metric's name and label strings and looks them up under its
        /// lock on every call, which under `wrk` cost more than the route answering from kept
        /// bytes (issue 24); a counter once made is the registry's for good, so it is kept here.
        private let requestCounters = Mutex<[RequestKey: Counter]>([:])

        private struct RequestKey: Hashable {
            let route: String
            let method: String
            let status: Int
        }

        /// Counts one answered request.
        func countRequest(route: String, method: String, status: Int) {
            let key = RequestKey(route: route, method: method, status: status)
            if let counter = requestCounters.withLock({ $0[key] }) {
                counter.increment()
                return
            }
            // Made outside the lock (the registry has its own, and returns the same counter to
            // a second maker of the same labels).
            let counter = registry.makeCounter(
                descriptor: Self.name(
                    "http_requests", unit: "total", help: "HTTP requests answered, by route, method and status."),
                labels: [("route", route), ("method", method), ("status", String(status))])
            requestCounters.withLock { $0[key] = counter }
            counter.increment()
        }

        /// Records a stream opening on `query`.
        func streamOpened(query: String) {
            let distinct = queries.withLock { queries -> Int in
                queries[query, default: 0] += 1
                return queries.count
            }
            openStreams.increment()
            distinctQueries.set(Double(distinct))
        }

        /// Records a stream on `query` ending.
        func streamClosed(query: String) {
            let distinct = queries.withLock { queries -> Int in
                let left = (queries[query] ?? 1) - 1
                queries[query] = left > 0 ? left : nil
                return queries.count
            }
            openStreams.decrement()
            distinctQueries.set(Double(distinct))
        }

        /// Records a change stream opening.
        func changeStreamOpened() { openChangeStreams.increment() }

        /// Records a change stream ending.
        func changeStreamClosed() { openChangeStreams.decrement() }

        /// Records one window's delivery time.
        func delivered(after duration: Duration) {
            delivery.record(duration)
        }

        /// The Prometheus text exposition of every metric.
        public func text() -> String { registry.emitToString() }

        func response() -> Response {
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
    }

    /// One log line per request through swift-log (method, path, status, time taken), and the
    /// request counter of `ServerMetrics`.
    struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
        let logger: Logging.Logger
        let metrics: ServerMetrics

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
            async throws
            -> Response
        {
            let start = ContinuousClock.now
            let response: Response
            do {
                response = try await next(request, context)
            } catch {
                // ProblemMiddleware answers every error below this one; what reaches here is
                // Hummingbird's own, logged with the status it will be given.
                let status = (error as? any HTTPResponseError)?.status.code ?? 500
                record(request, context: context, status: status, start: start)
                throw error
            }
            record(request, context: context, status: response.status.code, start: start)
            return response
        }

        private func record(_ request: Request, context: Context, status: Int, start: ContinuousClock.Instant) {
            let route = context.endpointPath ?? "unknown"
            metrics.countRequest(route: route, method: request.method.rawValue, status: status)
            let elapsed = ContinuousClock.now - start
            logger.info(
                "\(request.method) \(request.uri.path) \(status)",
                metadata: ["route": .string(route), "ms": .string(Self.milliseconds(elapsed))])
        }

        /// `elapsed` in milliseconds with one decimal (`0.3`, `12.0`), as `String(format: "%.1f")`
        /// wrote it, without Foundation's formatter (a tenth of the access log's cost under `wrk`).
        static func milliseconds(_ elapsed: Duration) -> String {
            let (seconds, attoseconds) = elapsed.components
            // Tenths of a millisecond, rounded half up: 1e14 attoseconds each.
            let tenths = max(0, seconds) * 10_000 + (max(0, attoseconds) + 50_000_000_000_000) / 100_000_000_000_000
            return "\(tenths / 10).\(tenths % 10)"
        }
    }
#endif
