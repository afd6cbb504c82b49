"""Run: records judged event by event, random games played, legal events listed,
printings compared."""
