vramtrace help report
