#if PostgreSQL
    internal import PostgresNIO

    extension PostgresRowSequence {
        /// Every row, decoded as `T`, in order.
        func all<each T: PostgresDecodable>(_ types: (repeat each T).Type) async throws -> [(repeat each T)] {
            var result: [(repeat each T)] = []
            for try await row in self { result.append(try row.decode((repeat each T).self)) }
            return result
        }
    }
#endif
