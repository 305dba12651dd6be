public enum ReportStub {}
