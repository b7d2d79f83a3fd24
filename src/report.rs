//! baseline_report.md, report.md and charts.
//!
//! OWNER: records helper.
