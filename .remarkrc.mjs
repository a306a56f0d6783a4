// The link check of `npm test` (`remark . --frail`): every relative link in the Markdown files points
// at a file that exists, and every #anchor at a heading of that file (remark-validate-links, offline).
import remarkValidateLinks from 'remark-validate-links';

export default { plugins: [[remarkValidateLinks, { repository: false }]] };
