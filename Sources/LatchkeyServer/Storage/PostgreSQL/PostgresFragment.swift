import PostgresNIO

/// A statement written like a ``PostgresQuery`` (values interpolated as bound parameters) whose
/// parameters are numbered only when statements are put together, so that several can run as
/// one query: one round trip.
struct PostgresFragment: ExpressibleByStringInterpolation, Sendable {
    fileprivate enum Piece: Sendable {
        case text(String)
        case value(any PostgresDynamicTypeEncodable & Sendable)
        case null
    }

    fileprivate var pieces: [Piece]

    init(stringLiteral value: String) {
        pieces = [.text(value)]
    }

    init(stringInterpolation: StringInterpolation) {
        pieces = stringInterpolation.pieces
    }

    struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var pieces: [Piece] = []

        init(literalCapacity: Int, interpolationCount: Int) {
            pieces.reserveCapacity(interpolationCount * 2 + 1)
        }

        mutating func appendLiteral(_ literal: String) {
            pieces.append(.text(literal))
        }

        mutating func appendInterpolation(_ value: some PostgresDynamicTypeEncodable & Sendable) {
            pieces.append(.value(value))
        }

        mutating func appendInterpolation(_ value: (some PostgresDynamicTypeEncodable & Sendable)?) {
            pieces.append(value.map { .value($0) } ?? .null)
        }
    }

    /// This statement as a query.
    var query: PostgresQuery { Self.query([self])! }

    /// One statement alone as it is; several as the data-modifying parts of one statement
    /// (`WITH c0 AS (…), c1 AS (…) SELECT 1`). PostgreSQL runs every part once, on one snapshot,
    /// so the parts must touch distinct rows. `nil` for no statements.
    static func query(_ statements: [PostgresFragment]) -> PostgresQuery? {
        guard let first = statements.first else { return nil }
        var sql = ""
        var binds = PostgresBindings()
        func write(_ statement: PostgresFragment) {
            for piece in statement.pieces {
                switch piece {
                case .text(let text):
                    sql += text
                case .value(let value):
                    binds.append(value)
                    sql += "$\(binds.count)"
                case .null:
                    binds.appendNull()
                    sql += "$\(binds.count)"
                }
            }
        }
        if statements.count == 1 {
            write(first)
        } else {
            sql = "WITH "
            for (index, statement) in statements.enumerated() {
                sql += index == 0 ? "c0 AS (" : "), c\(index) AS ("
                write(statement)
            }
            sql += ") SELECT 1"
        }
        return PostgresQuery(unsafeSQL: sql, binds: binds)
    }
}
