// The member roles as the dashboard reads them: components reach the schema's plain constants through
// lib/, never db/ directly.
export { MEMBER_ROLES, type MemberRole } from '@/db/schema/member-roles';
