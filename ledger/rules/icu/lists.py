"""ICU rating lists: three a year, in September, January and May.

Guidance for Rating Officers (ratings.icu.ie/articles/32), "Publish an ICU Rating List": "Rating
lists are published 3 times a year in September (just after the new season beigins), January and
May"; "The usual publication date is the middle of the month, around the 15th". Latest Ratings
Downloads (articles/22): "published ratings refer to the latest rating list publication time
(January, May or September)".
"""

LIST_MONTHS = (1, 5, 9)
