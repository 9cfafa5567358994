"""The results side: records, statistics, summary, JSON, JUnit, HTML, gate."""
